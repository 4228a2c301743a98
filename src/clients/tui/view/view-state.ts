import type { RollbackChoice } from '../../model/store/selectors.ts';

/** What the person looking at the UI chose to see: panes, focus, scroll, an open dialog. */

export const PANES = ['codons', 'activity', 'sentinels', 'errors', 'checkpoints'] as const;
export type PaneId = (typeof PANES)[number];

export const PANE_TITLES: Record<PaneId, string> = {
  codons: 'Codons',
  activity: 'Activity',
  sentinels: 'Sentinels',
  errors: 'Errors',
  checkpoints: 'Checkpoints',
};

export type Modal =
  | { kind: 'help' }
  | { kind: 'forceStop'; reason: string }
  /** `cut`: what was typed or pasted went past the message limit (32 KiB of UTF-8) and was cut there. */
  | { kind: 'message'; text: string; cut?: true }
  | { kind: 'rollbackPicker'; cursor: number }
  | { kind: 'confirmRollback'; target: RollbackChoice }
  | { kind: 'codonDetails'; codonId: string }
  /** Where to send a codon's review comments (review.submit): r redo, m message, n next. */
  | { kind: 'sendReview'; codonId: string };

export type ViewState = {
  visible: Record<PaneId, boolean>;
  focus: PaneId;
  modal?: Modal;
  /** Lines scrolled back from the newest (activity, sentinels, errors) or from the top (codons, checkpoints). */
  scroll: Record<PaneId, number>;
  /** The selected codon (↑↓ in the Codons pane): enter shows its details, g starts it. */
  codonCursor?: string;
  /** The selected activity entry; none means the pane follows the newest lines. */
  activityCursor?: string;
  /** Activity entries shown in full. */
  expanded: Readonly<Record<string, true>>;
  /** A message typed and closed with esc: the prompt opens with it again. */
  messageDraft?: string;
  /** The refused message whose text the prompt already gave back (its command id): given back once. */
  restoredMessage?: string;
};

export function initialViewState(): ViewState {
  return {
    visible: { codons: true, activity: true, sentinels: true, errors: true, checkpoints: false },
    focus: 'activity',
    scroll: { codons: 0, activity: 0, sentinels: 0, errors: 0, checkpoints: 0 },
    expanded: {},
  };
}

export function togglePane(view: ViewState, pane: PaneId): ViewState {
  const visible = { ...view.visible, [pane]: !view.visible[pane] };
  if (!Object.values(visible).some(Boolean)) return view; // keep at least one pane
  const focus = visible[view.focus] ? view.focus : (PANES.find((p) => visible[p]) ?? view.focus);
  return { ...view, visible, focus };
}

export function showPane(view: ViewState, pane: PaneId): ViewState {
  return view.visible[pane] ? view : togglePane(view, pane);
}

export function cycleFocus(view: ViewState, step: 1 | -1): ViewState {
  const shown = PANES.filter((p) => view.visible[p]);
  const at = shown.indexOf(view.focus);
  const focus = shown[(at + step + shown.length) % shown.length] ?? view.focus;
  return { ...view, focus };
}

export function scrollPane(
  view: ViewState,
  pane: PaneId,
  delta: number,
  max = Number.POSITIVE_INFINITY,
): ViewState {
  const value = Math.min(max, Math.max(0, view.scroll[pane] + delta));
  return value === view.scroll[pane] ? view : { ...view, scroll: { ...view.scroll, [pane]: value } };
}

/** Moves the activity selection through entry ids (oldest first); past the newest, follow again. */
export function moveActivityCursor(view: ViewState, ids: readonly string[], delta: number): ViewState {
  if (ids.length === 0) return view;
  const at = view.activityCursor === undefined ? ids.length : ids.indexOf(view.activityCursor);
  const target = (at === -1 ? ids.length : at) + delta;
  if (target >= ids.length) {
    const { activityCursor: _c, ...rest } = view;
    return rest;
  }
  return { ...view, activityCursor: ids[Math.max(0, target)] };
}

export function toggleExpanded(view: ViewState, id: string): ViewState {
  const { [id]: was, ...rest } = view.expanded;
  return { ...view, expanded: was ? rest : { ...rest, [id]: true } };
}

/** Moves the codon selection through codon ids (plan order); the first move selects the first codon. */
export function moveCodonCursor(view: ViewState, ids: readonly string[], delta: number): ViewState {
  if (ids.length === 0) return view;
  const at = view.codonCursor === undefined ? -1 : ids.indexOf(view.codonCursor);
  const target = at === -1 ? (delta < 0 ? ids.length - 1 : 0) : at + delta;
  const codonCursor = ids[Math.min(ids.length - 1, Math.max(0, target))]!;
  return codonCursor === view.codonCursor ? view : { ...view, codonCursor };
}
