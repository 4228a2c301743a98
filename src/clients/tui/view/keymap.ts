import { fitMessage, own, type ReviewTarget } from '../../../core/protocol/index.ts';
import { oneLine } from '../../model/format.ts';
import type { RollbackChoice } from '../../model/store/selectors.ts';
import {
  cycleFocus,
  type Modal,
  moveActivityCursor,
  moveCodonCursor,
  PANES,
  type PaneId,
  scrollPane,
  showPane,
  toggleExpanded,
  togglePane,
  type ViewState,
} from './view-state.ts';

/** Every key of the UI, written down once: the help line, the help screen and `handleKey` use it. */
export type Binding = { keys: string; label: string; description: string; control: boolean };

/** What quitting the UI does: `ribosome tui` leaves the server running; `ribosome run` stops it too. */
export type QuitMode = 'ui' | 'server';

const QUIT: Record<QuitMode, string> = {
  ui: 'quit the UI (the server keeps running)',
  server: 'quit the UI and stop the server (ribosome run started them together)',
};

export const BINDINGS: readonly Binding[] = [
  { keys: 'n', label: 'next', description: 'start the next codon (codon.next)', control: true },
  { keys: 's', label: 'skip', description: 'skip the running codon (codon.skip)', control: true },
  {
    keys: 'r',
    label: 'redo',
    description:
      'run the last codon again (codon.redo); while a codon waits for approval, this requests changes: it runs again from its start with its comments not sent yet (review.submit to redo), or as codon.redo when it has none',
    control: true,
  },
  {
    keys: 'a',
    label: 'approve',
    description: 'while a codon waits for approval: approve it, and the run goes on (approval.approve)',
    control: true,
  },
  {
    keys: 'u',
    label: 'roll back',
    description:
      'while a codon waits for approval: roll back to its start (rollback.toCodon start); asks to confirm',
    control: true,
  },
  {
    keys: 'g',
    label: 'start',
    description: 'start the selected codon (codon.start); select one with ↑↓ in Codons',
    control: true,
  },
  { keys: 'x', label: 'stop', description: 'force stop the running codon; asks for a reason', control: true },
  {
    keys: 'b',
    label: 'rollback',
    description: 'pick a rollback target, confirm, watch progress',
    control: true,
  },
  {
    keys: 'm',
    label: 'message',
    description:
      "type a message to the running codon's agent (codon.message); enter sends, esc closes and keeps the text, a refused message comes back",
    control: true,
  },
  {
    keys: 'v',
    label: 'review',
    description:
      "send the selected codon's review comments not sent yet (review.submit), then r: redo it from its start with them, m: message the running agent, n: the next codon's prompt; its details (enter) list its comments",
    control: true,
  },
  {
    keys: 'c',
    label: 'checkpoints',
    description: "list the run's checkpoints (checkpoint.list)",
    control: false,
  },
  {
    keys: '1-5',
    label: 'panes',
    description: 'show/hide 1 codons 2 activity 3 sentinels 4 errors 5 checkpoints',
    control: false,
  },
  { keys: 'tab', label: 'focus', description: 'focus the next pane (shift+tab: previous)', control: false },
  {
    keys: '↑↓',
    label: 'select',
    description: 'in Codons and Activity, select; in the other panes, scroll',
    control: false,
  },
  {
    keys: 'enter',
    label: 'open',
    description: "Codons: the selected codon's details; Activity: expand or collapse the selected entry",
    control: false,
  },
  { keys: '?', label: 'help', description: 'show or hide this help', control: false },
  { keys: 'q', label: 'quit', description: QUIT.ui, control: false },
];

/** Keys of an approval wait (docs/review.md#approval-gates): the help line shows them only while a codon waits. */
const APPROVAL_KEYS: ReadonlySet<string> = new Set(['a', 'u']);
/** Keys the help line leaves out while a codon waits: refused (n, g of another codon) or with nothing to act on (s). */
const NOT_WHILE_APPROVING: ReadonlySet<string> = new Set(['n', 's', 'g']);

export const bindingsFor = (readonly: boolean, quit: QuitMode = 'ui'): Binding[] =>
  BINDINGS.filter((b) => !readonly || !b.control).map((b) =>
    b.keys === 'q' ? { ...b, description: QUIT[quit] } : b,
  );

/**
 * The help line: mode first, then as many keys as fit, always ending with help and quit. `next` is the
 * codon the server said codon.next starts (server.idle nextCodonId): `n` names it, as the server does.
 * While a force-stop reason or a message is typed every key is text, q too: the line says how to leave instead.
 */
export function helpLine(
  readonly: boolean,
  width: number,
  next?: string,
  modal?: Modal['kind'],
  approving = false,
): string {
  const mode = readonly ? 'READ-ONLY' : 'READ-WRITE';
  if (modal === 'forceStop') return `${mode}  enter stop  esc cancel`;
  if (modal === 'message') return `${mode}  enter send  esc close (kept)  ctrl+u clear`;
  if (modal === 'sendReview') return `${mode}  r redo  m message  n next codon  esc cancel`;
  // Its keys mean yes and no here (a: yes, then restart), not what they mean outside it.
  if (modal === 'confirmRollback') return `${mode}  y yes  a yes, then restart  n no  esc cancel`;
  const tail = ['? help', 'q quit'];
  // While a codon waits for approval its keys come first; codon.next would be refused.
  const shown = bindingsFor(readonly).filter(
    (b) =>
      !['?', 'q', 'enter', '↑↓'].includes(b.keys) &&
      (approving ? !NOT_WHILE_APPROVING.has(b.keys) : !APPROVAL_KEYS.has(b.keys)),
  );
  const first = approving ? shown.filter((b) => APPROVAL_KEYS.has(b.keys) || b.keys === 'r') : [];
  const middle = [...first, ...shown.filter((b) => !first.includes(b))].map(
    (b) =>
      `${b.keys} ${b.keys === 'r' && approving ? 'request changes' : b.label}${b.keys === 'n' && next ? `: ${oneLine(next, 24)}` : ''}`,
  );
  const parts = [mode];
  const length = (items: string[]) => items.join('  ').length;
  for (const item of middle) {
    if (length([...parts, item, ...tail]) > width) break;
    parts.push(item);
  }
  return [...parts, ...tail].join('  ');
}

/** What a key asks the program to do besides changing the view. */
export type Effect =
  | { kind: 'next' | 'skip' | 'redo' | 'checkpoints' | 'quit' }
  | { kind: 'forceStop'; reason: string }
  | { kind: 'message'; text: string }
  | { kind: 'start'; codonId: string }
  | { kind: 'approve'; codonId: string }
  | { kind: 'review'; codonId: string; to: ReviewTarget }
  | { kind: 'rollback'; target: RollbackChoice; autoRestart: boolean };

/** The parts of Ink's Key the UI looks at. */
export type KeyInfo = Partial<
  Record<
    | 'upArrow'
    | 'downArrow'
    | 'pageUp'
    | 'pageDown'
    | 'home'
    | 'end'
    | 'return'
    | 'escape'
    | 'tab'
    | 'shift'
    | 'backspace'
    | 'delete'
    | 'ctrl'
    | 'meta',
    boolean
  >
>;

export type KeyContext = {
  readonly: boolean;
  targets: readonly RollbackChoice[];
  /** Activity entry ids, oldest first. */
  activityIds: readonly string[];
  /** Codon ids in the order the Codons pane lists them. */
  codonIds: readonly string[];
  /** Lines a page key moves. */
  pageSize: number;
  /** Our latest message, refused: `m` gives its text back (selectors.ts refusedMessage). */
  refusedMessage?: { id: string; text: string };
  /** How far each pane can scroll (its lines minus its height). */
  maxScroll: Readonly<Record<PaneId, number>>;
  /**
   * The codon waiting for approval, if one does: `a` approves it, `u` rolls back to its start, `r`
   * requests changes (its comments not sent yet go with the redo when it has any).
   */
  approval?: { codonId: string; unsentComments?: number };
};

export type KeyOutcome = { view: ViewState; effects: Effect[] };

/** The keys of the send-review prompt. */
const REVIEW_KEYS: Readonly<Record<string, ReviewTarget>> = { r: 'redo', m: 'message', n: 'next' };

const PANE_KEYS: Record<string, PaneId> = Object.fromEntries(PANES.map((p, i) => [String(i + 1), p]));
// Panes that show the newest at the bottom scroll back with ↑; the others scroll down with ↓.
const TAIL_PANES: ReadonlySet<PaneId> = new Set(['activity', 'sentinels', 'errors']);

/** Pure: one key press in, the next view and the effects out. */
export function handleKey(view: ViewState, input: string, key: KeyInfo, ctx: KeyContext): KeyOutcome {
  const same = (effects: Effect[] = []): KeyOutcome => ({ view, effects });
  const to = (next: ViewState, effects: Effect[] = []): KeyOutcome => ({ view: next, effects });
  const closed = (): ViewState => {
    const { modal: _m, ...rest } = view;
    return rest;
  };
  const modal = view.modal;
  // Alt+key (or ESC typed right before a key) is not a command here: never act on it by accident.
  if (key.meta && !key.escape) return same();

  if (modal?.kind === 'forceStop') {
    if (key.escape) return to(closed());
    if (key.return) return to(closed(), [{ kind: 'forceStop', reason: modal.reason }]);
    const reason = typeText(modal.reason, input, key, 500);
    return reason === undefined ? same() : to({ ...view, modal: { ...modal, reason } });
  }
  if (modal?.kind === 'message') {
    const { messageDraft: _draft, ...rest } = closed();
    // Esc keeps the text for the next `m`; enter sends it (a refusal gives it back) or, empty, drops it.
    if (key.escape) return to(modal.text === '' ? rest : { ...rest, messageDraft: modal.text });
    if (key.return)
      return modal.text.trim() === '' ? to(rest) : to(rest, [{ kind: 'message', text: modal.text }]);
    if (key.ctrl && input === 'u') return to({ ...view, modal: { kind: 'message', text: '' } });
    const typed = typeText(modal.text, input, key, Number.POSITIVE_INFINITY);
    if (typed === undefined) return same();
    // Up to the protocol's limit (32 KiB of UTF-8), cut between characters; the prompt says it was cut
    // until a key takes text away.
    return to({ ...view, modal: messageModal(typed, modal.cut === true && !key.backspace && !key.delete) });
  }
  if (input === 'q' && !key.ctrl) return same([{ kind: 'quit' }]);
  if (modal?.kind === 'help') {
    if (key.escape || key.return || input === '?') return to(closed());
    return same();
  }
  if (modal?.kind === 'rollbackPicker') {
    const last = Math.max(0, ctx.targets.length - 1);
    const move = (cursor: number) =>
      to({ ...view, modal: { kind: 'rollbackPicker', cursor: Math.min(last, Math.max(0, cursor)) } });
    if (key.escape || input === 'b') return to(closed());
    if (key.upArrow || input === 'k') return move(modal.cursor - 1);
    if (key.downArrow || input === 'j') return move(modal.cursor + 1);
    if (key.pageUp) return move(modal.cursor - ctx.pageSize);
    if (key.pageDown) return move(modal.cursor + ctx.pageSize);
    if (key.home) return move(0);
    if (key.end) return move(last);
    const target = ctx.targets[Math.min(modal.cursor, last)];
    if (key.return && target) return to({ ...view, modal: { kind: 'confirmRollback', target } });
    return same();
  }
  if (modal?.kind === 'codonDetails') {
    if (key.escape || key.return) return to(closed());
    if (input === 'g' && !ctx.readonly) return to(closed(), [{ kind: 'start', codonId: modal.codonId }]);
    if (input === 'v' && !ctx.readonly)
      return to({ ...view, modal: { kind: 'sendReview', codonId: modal.codonId } });
    return same();
  }
  if (modal?.kind === 'sendReview') {
    if (key.escape || input === 'v') return to(closed());
    const to_ = REVIEW_KEYS[input];
    return to_ ? to(closed(), [{ kind: 'review', codonId: modal.codonId, to: to_ }]) : same();
  }
  if (modal?.kind === 'confirmRollback') {
    if (input === 'y' || input === 'a') {
      return to({ ...showPane(closed(), 'checkpoints'), focus: 'checkpoints' }, [
        { kind: 'rollback', target: modal.target, autoRestart: input === 'a' },
      ]);
    }
    if (input === 'n' || key.escape) return to(closed());
    return same();
  }

  if (input === '?') return to({ ...view, modal: { kind: 'help' } });
  if (!ctx.readonly && ctx.approval) {
    const { codonId } = ctx.approval;
    if (input === 'a') return same([{ kind: 'approve', codonId }]);
    if (input === 'r' && (ctx.approval.unsentComments ?? 0) > 0)
      return same([{ kind: 'review', codonId, to: 'redo' }]);
    if (input === 'u') {
      const target: RollbackChoice = {
        kind: 'codon',
        codonId,
        checkpointType: 'start',
        label: `start of ${codonId}`,
      };
      return to({ ...view, modal: { kind: 'confirmRollback', target } });
    }
  }
  if (!ctx.readonly) {
    if (input === 'n') return same([{ kind: 'next' }]);
    if (input === 's') return same([{ kind: 'skip' }]);
    if (input === 'r') return same([{ kind: 'redo' }]);
    if (input === 'g')
      return view.codonCursor === undefined ? same() : same([{ kind: 'start', codonId: view.codonCursor }]);
    if (input === 'x') return to({ ...view, modal: { kind: 'forceStop', reason: '' } });
    if (input === 'v')
      return view.codonCursor === undefined
        ? same()
        : to({ ...view, modal: { kind: 'sendReview', codonId: view.codonCursor } });
    if (input === 'm') return to(openMessage(view, ctx.refusedMessage));
    if (input === 'b')
      return to({ ...view, modal: { kind: 'rollbackPicker', cursor: 0 } }, [{ kind: 'checkpoints' }]);
  }
  if (input === 'c')
    return to({ ...showPane(view, 'checkpoints'), focus: 'checkpoints' }, [{ kind: 'checkpoints' }]);
  const pane = own(PANE_KEYS, input);
  if (pane) return to(togglePane(view, pane));
  if (key.tab) return to(cycleFocus(view, key.shift ? -1 : 1));

  const focus = view.focus;
  if (focus === 'codons') {
    const ids = ctx.codonIds;
    const move = (delta: number) => to(moveCodonCursor(view, ids, delta));
    if (key.upArrow || input === 'k') return move(-1);
    if (key.downArrow || input === 'j') return move(1);
    if (key.pageUp) return move(-ctx.pageSize);
    if (key.pageDown) return move(ctx.pageSize);
    if (key.home) return move(-ids.length);
    if (key.end) return move(ids.length);
    if (key.escape && view.codonCursor !== undefined) {
      const { codonCursor: _c, ...rest } = view;
      return to(rest);
    }
    if (key.return) {
      const selected = moveCodonCursor(view, ids, 0);
      const codonId = selected.codonCursor;
      return codonId ? to({ ...selected, modal: { kind: 'codonDetails', codonId } }) : same();
    }
    return same();
  }
  if (focus === 'activity') {
    if (key.upArrow || input === 'k') return to(moveActivityCursor(view, ctx.activityIds, -1));
    if (key.downArrow || input === 'j') return to(moveActivityCursor(view, ctx.activityIds, 1));
    if (key.pageUp) return to(moveActivityCursor(view, ctx.activityIds, -ctx.pageSize));
    if (key.pageDown) return to(moveActivityCursor(view, ctx.activityIds, ctx.pageSize));
    if (key.home) return to(moveActivityCursor(view, ctx.activityIds, -ctx.activityIds.length));
    if (key.end || key.escape) return to(moveActivityCursor(view, ctx.activityIds, ctx.activityIds.length));
    if (key.return || input === ' ') {
      const id = view.activityCursor ?? ctx.activityIds.at(-1);
      return id ? to(toggleExpanded(view, id)) : same();
    }
    return same();
  }
  const back = TAIL_PANES.has(focus) ? 1 : -1;
  const max = ctx.maxScroll[focus];
  const scroll = (delta: number) => to(scrollPane(view, focus, delta, max));
  if (key.upArrow || input === 'k') return scroll(back);
  if (key.downArrow || input === 'j') return scroll(-back);
  if (key.pageUp) return scroll(back * ctx.pageSize);
  if (key.pageDown) return scroll(-back * ctx.pageSize);
  if (key.home) return scroll(back * max);
  if (key.end) return scroll(-back * max);
  return same();
}

/** One key on a line of typed text: the new text, or undefined when the key types nothing. */
/**
 * The message prompt, opened with what was typed before: a refused message's text (once), then any
 * draft closed with esc, so nothing typed is lost.
 */
function openMessage(view: ViewState, refused: KeyContext['refusedMessage']): ViewState {
  const back = refused !== undefined && refused.id !== view.restoredMessage ? refused : undefined;
  const { messageDraft, ...rest } = view;
  const text = [back?.text, messageDraft].filter((t) => t !== undefined && t !== '').join(' ');
  return {
    ...rest,
    modal: messageModal(text, false),
    ...(back === undefined ? {} : { restoredMessage: back.id }),
  };
}

/** The message prompt holding `text` as far as a message may hold it, saying so when it was cut. */
function messageModal(text: string, cut: boolean): Extract<Modal, { kind: 'message' }> {
  const fitted = fitMessage(text);
  return fitted.length < text.length || cut
    ? { kind: 'message', text: fitted, cut: true }
    : { kind: 'message', text: fitted };
}

function typeText(value: string, input: string, key: KeyInfo, max: number): string | undefined {
  if (key.backspace || key.delete) return Array.from(value).slice(0, -1).join('');
  if (key.ctrl || key.meta || !input) return undefined;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: typed text keeps printable characters only
  const typed = input.replace(/[\u0000-\u001f\u007f]/g, '');
  return Array.from(value + typed)
    .slice(0, max)
    .join('');
}
