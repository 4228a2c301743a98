import { cleanup } from 'ink-testing-library';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { handleKey, helpLine, type KeyContext } from '../../../src/clients/tui/view/keymap.ts';
import { initialViewState, type ViewState } from '../../../src/clients/tui/view/view-state.ts';
import { codonEnd, codonStart, resetCost, runStarted } from '../model/helpers/events.ts';
import { ev, FakeClient } from '../model/helpers/fake-client.ts';
import { KEYS, renderApp } from './helpers/render.ts';

beforeEach(() => resetCost());
afterEach(() => cleanup());

const plan = {
  name: 'p',
  codons: [
    { codonId: 'one', codonName: 'Write hello', index: 0 },
    { codonId: 'two', codonName: 'Edit hello', index: 1, description: 'Makes the greeting warmer.' },
    { codonId: 'three', codonName: 'Write README', index: 2 },
  ],
};

const history = () => [
  ...runStarted('ribosome/run-1'),
  ...codonStart('one', 0, 'Write hello'),
  ...codonEnd('one', 'completed', 0.0123, 2_100),
  ev('server.idle', { reason: 'codon-completed', message: 'idle', nextCodonId: 'two' }),
];

/** The Codons pane focused: tab from Activity backwards. */
async function focusCodons(app: ReturnType<typeof renderApp>): Promise<void> {
  await app.press(`\u001b[Z`); // shift+tab
  await app.waitFor('▶ Codons');
}

describe('choosing a codon in the TUI', () => {
  it('↑↓ select a codon, g starts it with codon.start and its id', async () => {
    const client = new FakeClient({ history: history(), ready: { plan } });
    const app = renderApp(client, { width: 120 });
    await app.waitFor('three Write README');
    await focusCodons(app);
    await app.press(KEYS.down, KEYS.down, KEYS.down);
    const frame = await app.waitFor('› · three Write README');
    expect(frame).toContain('Codons · enter: details · g: start');
    await app.press('g');
    expect(client.controls()).toEqual([
      expect.objectContaining({ type: 'codon.start', data: { codonId: 'three' } }),
    ]);
    await app.waitFor('start three');
  });

  it('enter opens the selected codon’s details; g there starts it, esc closes', async () => {
    const client = new FakeClient({ history: history(), ready: { plan } });
    const app = renderApp(client, { width: 120 });
    await app.waitFor('three Write README');
    await focusCodons(app);
    await app.press(KEYS.down, KEYS.down, KEYS.enter);
    const details = await app.waitFor('Makes the greeting warmer.');
    expect(details).toContain('two · Edit hello');
    expect(details).toMatch(/position\s+2 of 3/);
    expect(details).toContain('g starts this codon (codon.start) · esc or enter closes');
    await app.press(KEYS.escape);
    await app.waitFor((f) => !f.includes('Makes the greeting warmer.'));
    expect(client.controls()).toEqual([]);
    await app.press(KEYS.enter);
    await app.waitFor('Makes the greeting warmer.');
    await app.press('g');
    expect(client.controls()).toEqual([
      expect.objectContaining({ type: 'codon.start', data: { codonId: 'two' } }),
    ]);
    await app.waitFor((f) => !f.includes('Makes the greeting warmer.'));
  });

  it('the details of a failed codon say why; readonly: details, but no start', async () => {
    const failed = [
      ...runStarted('ribosome/run-1'),
      ...codonStart('one', 0, 'Write hello'),
      ...codonEnd('one', 'failed', 0.5, 1_000),
    ];
    const client = new FakeClient({ history: failed, mode: 'readonly', ready: { plan } });
    const app = renderApp(client, { readonly: true, width: 120 });
    await app.waitFor('one Write hello');
    await focusCodons(app);
    await app.press(KEYS.enter);
    const frame = await app.waitFor('esc or enter closes');
    expect(frame).toMatch(/status\s+failed/);
    expect(frame).not.toContain('g starts');
    await app.press('g');
    expect(client.controls()).toEqual([]);
  });

  it('g without a selected codon sends nothing', () => {
    const ctx: KeyContext = {
      readonly: false,
      targets: [],
      activityIds: [],
      codonIds: ['a', 'b'],
      pageSize: 5,
      maxScroll: { codons: 0, activity: 0, sentinels: 0, errors: 0, checkpoints: 0 },
    };
    expect(handleKey(initialViewState(), 'g', {}, ctx).effects).toEqual([]);
    const selected: ViewState = { ...initialViewState(), codonCursor: 'b' };
    expect(handleKey(selected, 'g', {}, ctx).effects).toEqual([{ kind: 'start', codonId: 'b' }]);
    expect(handleKey(selected, 'g', {}, { ...ctx, readonly: true }).effects).toEqual([]);
  });
});

describe('what q does, as the help says', () => {
  it('attached (`ribosome tui`): q quits the UI and the help says the server keeps running', async () => {
    let quit = 0;
    const app = renderApp(new FakeClient({ history: history() }), { onQuit: () => quit++ });
    await app.press('?');
    const help = await app.waitFor('esc or ? closes this help');
    expect(help).toContain('q      quit the UI (the server keeps running)');
    await app.press('q');
    expect(quit).toBe(1);
  });

  it('under `ribosome run`: the help says q stops the server too', async () => {
    const app = renderApp(new FakeClient({ history: history() }), { quitStopsServer: true });
    await app.press('?');
    const help = await app.waitFor('esc or ? closes this help');
    expect(help).toContain('q      quit the UI and stop the server (ribosome run started them together)');
    expect(help).not.toContain('the server keeps running');
  });

  it('while a force-stop reason is typed, q is text: the help line offers enter and esc, not q', async () => {
    let quit = 0;
    const client = new FakeClient({ history: [...history(), ...codonStart('two', 1, 'Edit hello')] });
    const app = renderApp(client, { onQuit: () => quit++ });
    // The codon first (the help line is there before the history is folded), then x, then q as text.
    await app.waitFor('Edit hello');
    await app.press('x');
    await app.waitFor('Force stop — reason:');
    await app.press('q');
    const frame = await app.waitFor('READ-WRITE  enter stop  esc cancel');
    expect(frame).not.toContain('q quit');
    expect(frame).toContain('Force stop — reason: q');
    expect(quit).toBe(0);
    expect(helpLine(false, 80, undefined, 'forceStop')).toBe('READ-WRITE  enter stop  esc cancel');
  });
});

describe('review comments in the TUI', () => {
  const comment = (commentId: string, lines: { start: number; end: number }, text: string) =>
    ev('review.comment', {
      commentId,
      codonId: 'one',
      from: 'a'.repeat(40),
      to: 'b'.repeat(40),
      file: 'hello.txt',
      side: 'new',
      lines,
      hunk: '+Hello',
      text,
      author: { kind: 'sentinel', sentinelId: 'lint' },
    });
  const reviewed = () => [
    ...history(),
    comment('c1', { start: 1, end: 2 }, 'Say it warmer.'),
    comment('c2', { start: 4, end: 4 }, `A comma here. ${'and more '.repeat(80)}END`),
    ev('review.sent', {
      reviewId: 'r1',
      codonId: 'one',
      to: 'next',
      commentIds: ['c1'],
      text: 'the review',
      targetCodonId: 'two',
      by: { kind: 'client', clientId: 'other' },
    }),
  ];

  it('the codon’s details list its comments with where each was sent; v then r sends the review to a redo', async () => {
    const client = new FakeClient({ history: reviewed(), ready: { plan } });
    const app = renderApp(client, { width: 120 });
    await app.waitFor('three Write README');
    await focusCodons(app);
    await app.press(KEYS.down, KEYS.enter);
    const details = await app.waitFor('comments (2, 1 not sent)');
    expect(details).toContain('✎ hello.txt 1-2 (new) · sentinel lint · carried into two');
    // The quote's first lines under each comment; a long comment cut ends with an ellipsis.
    expect(details).toContain('│ +Hello');
    expect(details).toContain('Say it warmer.');
    expect(details).toContain('✎ hello.txt 4 (new) · sentinel lint · not sent');
    expect(details).toMatch(/and more[^\n]*…/);
    expect(details).not.toContain('END');
    expect(details).toContain('v sends its review');
    await app.press('v');
    await app.waitFor('Send the review of one (1 comment not sent yet)');
    await app.press('r');
    expect(client.controls()).toEqual([
      expect.objectContaining({ type: 'review.submit', data: { codonId: 'one', to: 'redo' } }),
    ]);
  });

  it('v on a selected codon asks where; esc cancels; readonly has no v', () => {
    const ctx: KeyContext = {
      readonly: false,
      targets: [],
      activityIds: [],
      codonIds: ['one', 'two'],
      pageSize: 5,
      maxScroll: { codons: 0, activity: 0, sentinels: 0, errors: 0, checkpoints: 0 },
    };
    const selected: ViewState = { ...initialViewState(), focus: 'codons', codonCursor: 'two' };
    const asked = handleKey(selected, 'v', {}, ctx);
    expect(asked.view.modal).toEqual({ kind: 'sendReview', codonId: 'two' });
    expect(helpLine(false, 120, undefined, 'sendReview')).toBe(
      'READ-WRITE  r redo  m message  n next codon  esc cancel',
    );
    expect(handleKey(asked.view, 'n', {}, ctx).effects).toEqual([
      { kind: 'review', codonId: 'two', to: 'next' },
    ]);
    expect(handleKey(asked.view, '', { escape: true }, ctx).view.modal).toBeUndefined();
    expect(handleKey(selected, 'v', {}, { ...ctx, readonly: true }).view.modal).toBeUndefined();
  });
});
