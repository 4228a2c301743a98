import { describe, expect, it } from 'vitest';
import type { ActivityEntry } from '../../../src/clients/model/store/run-state.ts';
import type { RollbackChoice } from '../../../src/clients/model/store/selectors.ts';
import { activityLines } from '../../../src/clients/tui/view/content/activity-lines.ts';
import { progressBar } from '../../../src/clients/tui/view/content/checkpoint-lines.ts';
import { padTo, wrapText } from '../../../src/clients/tui/view/fit-text.ts';
import {
  type Effect,
  handleKey,
  helpLine,
  type KeyContext,
  type KeyInfo,
} from '../../../src/clients/tui/view/keymap.ts';
import { computeLayout } from '../../../src/clients/tui/view/layout.ts';
import { windowLines, wrapLine } from '../../../src/clients/tui/view/lines.ts';
import { initialViewState, type ViewState } from '../../../src/clients/tui/view/view-state.ts';

const targets: RollbackChoice[] = [
  { kind: 'lastSuccess', label: 'the last successful codon' },
  { kind: 'codon', codonId: 'a', checkpointType: 'start', label: 'start of a' },
];
const ctx = (over: Partial<KeyContext> = {}): KeyContext => ({
  readonly: false,
  targets,
  activityIds: ['e1', 'e2', 'e3'],
  codonIds: ['a', 'b', 'c'],
  pageSize: 10,
  maxScroll: { codons: 5, activity: 0, sentinels: 5, errors: 5, checkpoints: 5 },
  ...over,
});

/** Presses keys in order; returns the last view and every effect. */
function keys(presses: Array<string | KeyInfo>, c = ctx(), start: ViewState = initialViewState()) {
  let view = start;
  const effects: Effect[] = [];
  for (const p of presses) {
    const outcome = typeof p === 'string' ? handleKey(view, p, {}, c) : handleKey(view, '', p, c);
    view = outcome.view;
    effects.push(...outcome.effects);
  }
  return { view, effects };
}

describe('keys', () => {
  it('sends next, skip and redo, and quits', () => {
    expect(keys(['n', 's', 'r', 'q']).effects.map((e) => e.kind)).toEqual(['next', 'skip', 'redo', 'quit']);
  });

  it('during an approval wait r requests changes: with comments not sent it sends them to redo, else codon.redo', () => {
    const withComments = keys(['r'], ctx({ approval: { codonId: 'one', unsentComments: 2 } }));
    expect(withComments.effects).toEqual([{ kind: 'review', codonId: 'one', to: 'redo' }]);
    expect(keys(['r'], ctx({ approval: { codonId: 'one', unsentComments: 0 } })).effects).toEqual([
      { kind: 'redo' },
    ]);
    expect(
      keys(['r'], ctx({ readonly: true, approval: { codonId: 'one', unsentComments: 2 } })).effects,
    ).toEqual([]);
  });

  it('asks for a force-stop reason, with editing, and cancels on escape', () => {
    const typed = keys(['x', 'l', 'o', 'o', 'p', { backspace: true }, 'q', 's']);
    expect(typed.view.modal).toEqual({ kind: 'forceStop', reason: 'looqs' });
    expect(typed.effects).toEqual([]); // q and s are text here, not keys
    const sent = keys([{ return: true }], ctx(), typed.view);
    expect(sent.effects).toEqual([{ kind: 'forceStop', reason: 'looqs' }]);
    expect(sent.view.modal).toBeUndefined();
    expect(keys(['x', 'a', { escape: true }]).effects).toEqual([]);
  });

  it('m opens a one-line message: typed keys are text, enter sends it, esc closes, empty sends nothing', () => {
    const typed = keys(['m', 'g', 'o', ' ', 'l', 'e', 'f', 'x', { backspace: true }, 't']);
    expect(typed.view.modal).toEqual({ kind: 'message', text: 'go left' });
    expect(typed.effects).toEqual([]); // g is text here, not start
    const sent = keys([{ return: true }], ctx(), typed.view);
    expect(sent.effects).toEqual([{ kind: 'message', text: 'go left' }]);
    expect(sent.view.modal).toBeUndefined();
    // Sent: the next prompt opens empty.
    expect(keys(['m'], ctx(), sent.view).view.modal).toEqual({ kind: 'message', text: '' });
    for (const cancelled of [keys(['m', 'a', { escape: true }]), keys(['m', ' ', { return: true }])]) {
      expect(cancelled.effects).toEqual([]);
      expect(cancelled.view.modal).toBeUndefined();
    }
    expect(helpLine(false, 80, undefined, 'message')).toBe(
      'READ-WRITE  enter send  esc close (kept)  ctrl+u clear',
    );
  });

  it('nothing typed is lost: esc keeps the text, a refused message comes back once (trial 17 L4)', () => {
    const closed = keys(['m', 'h', 'i', { escape: true }]);
    expect(closed.view.modal).toBeUndefined();
    const reopened = keys(['m'], ctx(), closed.view);
    expect(reopened.view.modal).toEqual({ kind: 'message', text: 'hi' });
    // ctrl+u clears it; enter on nothing drops it.
    const cleared = handleKey(reopened.view, 'u', { ctrl: true }, ctx());
    expect(cleared.view.modal).toEqual({ kind: 'message', text: '' });

    // Our message "use ab" was refused (NO_CODON_RUNNING): m gives it back, once.
    const refused = ctx({ refusedMessage: { id: 'c7', text: 'use ab' } });
    const back = keys(['m'], refused);
    expect(back.view.modal).toEqual({ kind: 'message', text: 'use ab' });
    const again = keys([{ escape: true }, 'm'], refused, keys(['m', { return: true }], refused).view);
    expect(again.view.modal).toEqual({ kind: 'message', text: '' });
    // A draft kept with esc and a refused text both come back.
    expect(keys(['m'], refused, closed.view).view.modal).toEqual({ kind: 'message', text: 'use ab hi' });
  });

  it('a paste past the limit is cut at 32 KiB of UTF-8 and the prompt knows it, until text is taken away (trial 17b L5)', () => {
    const pasted = keys(['m', 'x'.repeat(40_000)]);
    expect(pasted.view.modal).toEqual({ kind: 'message', text: 'x'.repeat(32_768), cut: true });
    // More typing stays cut; a backspace or ctrl+u clears the note.
    expect(keys(['y'], ctx(), pasted.view).view.modal).toMatchObject({ cut: true });
    expect(keys([{ backspace: true }], ctx(), pasted.view).view.modal).toEqual({
      kind: 'message',
      text: 'x'.repeat(32_767),
    });
    expect(handleKey(pasted.view, 'u', { ctrl: true }, ctx()).view.modal).toEqual({
      kind: 'message',
      text: '',
    });
    // Two-byte characters: 16 384 of them fill the limit.
    expect(keys(['m', 'é'.repeat(20_000)]).view.modal).toEqual({
      kind: 'message',
      text: 'é'.repeat(16_384),
      cut: true,
    });
    expect(keys(['m', 'short']).view.modal).toEqual({ kind: 'message', text: 'short' });
  });

  it('picks a rollback target, then confirms (y) or confirms with restart (a), or backs out (n)', () => {
    const picked = keys(['b', { downArrow: true }, { return: true }]);
    expect(picked.effects).toEqual([{ kind: 'checkpoints' }]);
    expect(picked.view.modal).toEqual({ kind: 'confirmRollback', target: targets[1] });
    const yes = keys(['y'], ctx(), picked.view);
    expect(yes.effects).toEqual([{ kind: 'rollback', target: targets[1], autoRestart: false }]);
    expect(yes.view.visible.checkpoints).toBe(true);
    expect(keys(['a'], ctx(), picked.view).effects).toEqual([
      { kind: 'rollback', target: targets[1], autoRestart: true },
    ]);
    const no = keys(['n'], ctx(), picked.view);
    expect(no.effects).toEqual([]);
    expect(no.view.modal).toBeUndefined();
  });

  it('keeps the picker cursor within the targets', () => {
    const v = keys(['b', { downArrow: true }, { downArrow: true }, { downArrow: true }]).view;
    expect(v.modal).toEqual({ kind: 'rollbackPicker', cursor: 1 });
    expect(keys(['b', { upArrow: true }]).view.modal).toEqual({ kind: 'rollbackPicker', cursor: 0 });
  });

  it('has no controls in readonly mode, but views still work', () => {
    const r = keys(['n', 's', 'r', 'x', 'm', 'b', 'c', '3', '?'], ctx({ readonly: true }));
    expect(r.effects).toEqual([{ kind: 'checkpoints' }]);
    expect(r.view.visible.sentinels).toBe(false);
    expect(r.view.modal).toEqual({ kind: 'help' });
  });

  it('lists checkpoints and shows their pane', () => {
    const r = keys(['c']);
    expect(r.effects).toEqual([{ kind: 'checkpoints' }]);
    expect(r.view.visible.checkpoints).toBe(true);
    expect(r.view.focus).toBe('checkpoints');
  });

  it('toggles panes, moving focus off a hidden pane and never hiding the last one', () => {
    const v = keys(['2']).view;
    expect(v.visible.activity).toBe(false);
    expect(v.focus).toBe('codons');
    const none = keys(['1', '2', '3', '4']).view;
    expect(
      Object.entries(none.visible)
        .filter(([, on]) => on)
        .map(([p]) => p),
    ).toEqual(['errors']);
  });

  it('cycles focus with tab and shift+tab over visible panes', () => {
    expect(keys([{ tab: true }]).view.focus).toBe('sentinels');
    expect(keys([{ tab: true, shift: true }]).view.focus).toBe('codons');
  });

  it('selects activity entries, expands with enter, and follows again with end', () => {
    const sel = keys([{ upArrow: true }, { upArrow: true }, { return: true }]);
    expect(sel.view.activityCursor).toBe('e2');
    expect(sel.view.expanded).toEqual({ e2: true });
    expect(keys([{ end: true }], ctx(), sel.view).view.activityCursor).toBeUndefined();
    expect(keys([{ return: true }]).view.expanded).toEqual({ e3: true });
  });

  it('scrolls other panes within their room', () => {
    const v = keys([{ tab: true }, { upArrow: true }, { pageUp: true }]).view;
    expect(v.scroll.sentinels).toBe(5);
    expect(keys([{ downArrow: true }], ctx(), v).view.scroll.sentinels).toBe(4);
  });

  it('ignores Alt+key, which is how a terminal sends ESC typed just before a key', () => {
    expect(handleKey(initialViewState(), 'x', { meta: true }, ctx())).toEqual({
      view: initialViewState(),
      effects: [],
    });
    expect(handleKey(initialViewState(), 'q', { meta: true }, ctx()).effects).toEqual([]);
  });

  it('opens and closes help', () => {
    const open = keys(['?']).view;
    expect(open.modal).toEqual({ kind: 'help' });
    expect(keys([{ escape: true }], ctx(), open).view.modal).toBeUndefined();
  });
});

describe('help line', () => {
  it('fits the width, shows the mode, and always offers help and quit', () => {
    for (const width of [40, 80, 100, 200]) {
      const line = helpLine(false, width);
      expect(line.startsWith('READ-WRITE')).toBe(true);
      expect(line.endsWith('? help  q quit')).toBe(true);
      if (width >= 80) expect(line.length).toBeLessThanOrEqual(width);
    }
    expect(helpLine(false, 100)).toContain('s skip');
    const ro = helpLine(true, 200);
    expect(ro).toMatch(/^READ-ONLY/);
    for (const control of ['n next', 's skip', 'r redo', 'x stop', 'b rollback'])
      expect(ro).not.toContain(control);
  });
});

describe('layout', () => {
  it('fits 80x24 with a free last row, and scales up', () => {
    for (const [w, h] of [
      [80, 24],
      [120, 40],
      [240, 70],
    ] as const) {
      const layout = computeLayout(w, h, initialViewState().visible);
      const rows = layout.rows.reduce((sum, r) => sum + (r[0]?.height ?? 0), 0);
      expect(layout.headerRows + rows + layout.footerRows).toBe(h - 1);
      for (const row of layout.rows) expect(row.reduce((sum, b) => sum + b.width, 0)).toBe(w);
    }
    const small = computeLayout(80, 24, initialViewState().visible);
    expect(small.rows.map((r) => r.map((b) => `${b.id}:${b.width}x${b.height}`))).toEqual([
      ['codons:29x12', 'activity:51x12'],
      ['sentinels:40x7', 'errors:40x7'],
    ]);
  });

  it('gives the whole height to the panes left', () => {
    const v = { ...initialViewState().visible, sentinels: false, errors: false, codons: false };
    expect(computeLayout(100, 30, v).rows).toEqual([
      [{ id: 'activity', width: 100, height: 25, border: false }],
    ]);
  });
});

describe('lines', () => {
  const lines = Array.from({ length: 10 }, (_, i) => ({ text: `l${i}` }));
  const texts = (w: { lines: Array<{ text: string }> }) => w.lines.map((l) => l.text);

  it('windows from the bottom or the top, scrolled, keeping a line in view', () => {
    expect(texts(windowLines(lines, 3, 'bottom', 0))).toEqual(['l7', 'l8', 'l9']);
    expect(texts(windowLines(lines, 3, 'bottom', 2))).toEqual(['l5', 'l6', 'l7']);
    expect(texts(windowLines(lines, 3, 'top', 0))).toEqual(['l0', 'l1', 'l2']);
    expect(texts(windowLines(lines, 3, 'top', 0, 6))).toEqual(['l4', 'l5', 'l6']);
    expect(windowLines(lines, 3, 'top', 99)).toMatchObject({ above: 7, below: 0 });
  });

  it('wraps long lines with an indent and an ellipsis when cut', () => {
    expect(wrapLine({ text: 'abcdefghij' }, 8).map((l) => l.text)).toEqual(['abcdefgh', '  ij']);
    expect(wrapLine({ text: 'x'.repeat(100) }, 10, 2).map((l) => l.text)).toEqual([
      'xxxxxxxxxx',
      '  xxxxxxx…',
    ]);
  });
});

describe('activity lines', () => {
  const entries: ActivityEntry[] = [
    { kind: 'message', id: 'm', codonId: 'a', text: 'short' },
    {
      kind: 'tool',
      id: 't',
      codonId: 'a',
      toolName: 'Bash',
      summary: 'ls',
      input: { command: 'ls' },
      result: { text: 'a.txt\nb.txt', isError: false, truncated: true, originalLength: 5000, ms: 12 },
    },
    { kind: 'tool', id: 'u', codonId: 'a', toolName: 'Read', summary: 'x', input: {} },
  ];

  it('says above the oldest entry it keeps how many earlier ones it dropped', () => {
    const entries: ActivityEntry[] = [{ kind: 'note', id: 'n', text: 'latest', tone: 'plain' }];
    const lines = activityLines(entries, { width: 60, expanded: {}, dropped: 2_001 }).lines.slice();
    expect(lines.map((l) => l.text)).toEqual([
      ' … 2,001 earlier entries not kept (the last 1 are)',
      '  latest',
    ]);
  });

  it('collapses tool calls to one line with their result state', () => {
    const lines = activityLines(entries, { width: 60, expanded: {} }).lines.slice();
    expect(lines.map((l) => l.text)).toEqual([
      '  say   short',
      ' +tool  Bash ls  ✓ 12ms',
      ' +tool  Read x  … running',
    ]);
  });

  it('cuts a long tool line in its command, keeping the result mark in the pane', () => {
    const long = `cat > test.sh <<'EOF' ${'x'.repeat(120)}`;
    const tools: ActivityEntry[] = [
      {
        kind: 'tool',
        id: 'l',
        codonId: 'a',
        toolName: 'run_shell_command',
        summary: long,
        result: { text: '', isError: false, truncated: false, originalLength: 0, ms: 25 },
      },
      {
        kind: 'tool',
        id: 'f',
        codonId: 'a',
        toolName: 'Bash',
        summary: long,
        result: { text: 'no', isError: true, truncated: false, originalLength: 2, ms: 3 },
      },
    ];
    const lines = activityLines(tools, { width: 60, expanded: {} }).lines.slice();
    expect(lines.map((l) => l.text)).toEqual([
      ` +tool  run_shell_command ${long.slice(0, 25)}…  ✓ 25ms`,
      ` +tool  Bash ${long.slice(0, 32)}…  ✗ failed 3ms`,
    ]);
    for (const line of lines) expect(line.text.length).toBe(60);
  });

  it('expands a tool call to its input and result', () => {
    const made = activityLines(entries, { width: 60, expanded: { t: true }, cursor: 't' });
    const { cursorLine } = made;
    const lines = made.lines.slice();
    expect(cursorLine).toBe(1);
    expect(lines[1]).toMatchObject({ text: '›−tool  Bash ls  ✓ 12ms', highlight: true });
    expect(lines.slice(2).map((l) => l.text.trim())).toEqual([
      'input {',
      '"command": "ls"',
      '}',
      'a.txt',
      'b.txt',
      '(result cut at 11 of 5000 characters)',
      '+tool  Read x  … running',
    ]);
  });

  it('makes any window of its lines as the whole list has them, expanded entries and the note of dropped ones included', () => {
    const many: ActivityEntry[] = Array.from({ length: 40 }, (_, i) =>
      i % 10 === 3
        ? { kind: 'message', id: `m${i}`, codonId: 'a', text: `line one of ${i}\nline two\nline three` }
        : { kind: 'note', id: `n${i}`, text: `note ${i}`, tone: 'plain' },
    );
    const expanded = { m3: true, m23: true } as const;
    const { lines, cursorLine } = activityLines(many, { width: 60, expanded, cursor: 'n30', dropped: 7 });
    const whole = lines.slice();
    // The note, 40 entries, and the three lines of each of the two expanded messages.
    expect(whole).toHaveLength(1 + 40 + 6);
    expect(whole[0]?.text).toContain('7 earlier entries not kept');
    expect(whole.map((l) => l.text).filter((t) => t.trim() === 'line two')).toHaveLength(2);
    expect(cursorLine).toBe(whole.findIndex((l) => l.highlight));
    expect(whole[cursorLine ?? -1]?.text).toBe('› note 30');
    for (let start = 0; start <= whole.length; start++)
      for (let end = start; end <= whole.length; end++)
        expect(lines.slice(start, end)).toEqual(whole.slice(start, end));
    expect(windowLines(lines, 5, 'bottom', 0).lines).toEqual(whole.slice(-5));
  });
});

describe('text fitted to a pane', () => {
  it('wraps by characters and pads or cuts to a width', () => {
    expect(wrapText('abcdef\ngh', 4)).toEqual(['abcd', 'ef', 'gh']);
    expect([padTo('abc', 5), padTo('abcdef', 4)]).toEqual(['abc  ', 'abc…']);
    expect(progressBar(1, 4, 8)).toBe('[##------]');
  });
});
