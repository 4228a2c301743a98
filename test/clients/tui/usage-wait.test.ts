import { cleanup } from 'ink-testing-library';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { ServerEvent } from '../../../src/core/protocol/index.ts';
import { codonStart, resetCost, runStarted, transition } from '../model/helpers/events.ts';
import { ev, FakeClient } from '../model/helpers/fake-client.ts';
import { renderApp } from './helpers/render.ts';

/**
 * The terminal UI during a usage-limit wait: the header counts down to the reset, the codon says it
 * waits, `n` still starts it. The clock is injected (Date alone is faked; timers stay real, so Ink
 * renders as it does), so what the countdown says does not depend on how fast the test runs.
 */

// Local times: the clock reads the same in every time zone.
const local = (h: number, m = 0, s = 0) => new Date(2026, 10, 30, h, m, s);

beforeEach(() => {
  resetCost();
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(local(12, 46, 40));
});
afterEach(() => {
  cleanup();
  vi.useRealTimers();
});

function waitingHistory(resetsAt: Date): ServerEvent[] {
  const failureReason = { type: 'usage-limit' as const, retriable: true, resetsAt: resetsAt.toISOString() };
  return [
    ...runStarted(),
    ...codonStart('one', 0, 'Write the parser'),
    transition('CodonTransitioned', {
      codonId: 'one',
      from: 'running',
      to: 'failed',
      at: new Date().toISOString(),
      duration: 1_000,
      failureReason,
    }),
    ev('codon.completed', {
      codonId: 'one',
      success: false,
      cost: 0.01,
      duration: 1_000,
      exitStatus: { type: 'error', code: 1 },
      failureReason,
    }),
    ev('usageLimit.waiting', {
      codonId: 'one',
      agent: 'claude-code',
      resetsAt: resetsAt.toISOString(),
      until: new Date(resetsAt.getTime() + 60_000).toISOString(),
      waitMs: resetsAt.getTime() + 60_000 - Date.now(),
      message: 'one waits for the usage limit of claude-code to reset',
    }),
  ];
}

const header = (frame: string) => frame.split('\n')[1] ?? '';

describe('the terminal UI during a usage-limit wait', () => {
  it('says the reset time and the time left in the header, in full on a wide terminal', async () => {
    const app = renderApp(new FakeClient({ history: waitingHistory(local(15)) }), { width: 160 });
    const frame = await app.waitFor('waiting for the usage limit');
    expect(header(frame)).toMatch(
      /^waiting for the usage limit of claude-code to reset at 15:00; starts again at 15:01 \(in 2 h 14 m\) {2}cost \$0 {2}tokens/,
    );
    // The codon list: the codon waits, it did not just fail.
    const row = frame.split('\n').find((l) => l.includes('one Write the parser'));
    expect(row).toMatch(/◷ one Write the parser\s+usage limit/);
    // The status word fills its column: a space still stands before the cost.
    expect(row).toMatch(/usage limit +\$/);
    expect(row).not.toContain('failed');
    // `n` names it: codon.next starts it at once.
    expect(frame).toMatch(/n next: one/);
  });

  it('says it shorter on a narrow terminal, the reset and the time left first', async () => {
    const app = renderApp(new FakeClient({ history: waitingHistory(local(15)) }), { width: 60 });
    const frame = await app.waitFor('usage limit: resets');
    expect(header(frame)).toMatch(/^usage limit: resets 15:00, starts 15:01 \(in 2 h 14 m\) {2}cost/);
    expect(header(frame).length).toBeLessThanOrEqual(60);
  });

  it('counts down each second to when the codon starts again, then says any moment now', async () => {
    const app = renderApp(new FakeClient({ history: waitingHistory(local(12, 47, 25)) }), { width: 160 });
    await app.waitFor('reset at 12:47:25; starts again at 12:48:25 (in 1 m 45 s)');
    vi.setSystemTime(local(12, 46, 41));
    await app.waitFor('reset at 12:47:25; starts again at 12:48:25 (in 1 m 44 s)');
    vi.setSystemTime(local(12, 48, 30));
    await app.waitFor('reset at 12:47:25; starts again at 12:48:25 (any moment now)');
  });

  it('n sends codon.next during the wait; the codon starting ends it', async () => {
    const client = new FakeClient({ history: waitingHistory(local(15)) });
    const app = renderApp(client, { width: 160 });
    await app.waitFor('waiting for the usage limit');
    await app.press('n');
    expect(client.controls().map((c) => c.type)).toEqual(['codon.next']);
    client.emit(
      ev('usageLimit.ended', {
        codonId: 'one',
        how: 'command',
        command: 'codon.next',
        message: 'codon.next ended the wait',
      }),
      ...codonStart('one', 0, 'Write the parser'),
    );
    const frame = await app.waitFor((f) => !f.includes('waiting for the usage limit'));
    expect(header(frame)).toMatch(/^run running {2}cost/);
    const row = frame.split('\n').find((l) => l.includes('one Write the parser'));
    expect(row).toMatch(/^▶ one Write the parser ×2\s+running/);
  });
});
