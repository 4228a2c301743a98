import { describe, expect, it } from 'vitest';
import { alreadyThere, endedBy, newsOf } from '../../../src/clients/mcp/follow.ts';
import { runStatus, statusText } from '../../../src/clients/mcp/status.ts';
import type { RunRow } from '../../../src/clients/runs/run-rows.ts';
import { reduceAll } from '../../../src/execution/state/reducer.ts';
import type { Transition } from '../../../src/execution/state/transitions.ts';
import { ev } from '../model/helpers/fake-client.ts';

/** The MCP server during a usage-limit wait: its status says it, and wait does not outlast it. */

// Local times: the clocks read the same in every time zone.
const local = (h: number, m = 0, s = 0) => new Date(2026, 10, 30, h, m, s);
const NOW = local(12, 46, 40).getTime();
const runId = 'run-1';
const at = local(12, 40).toISOString();
const WAIT = {
  codonId: 'one',
  agent: 'gemini',
  resetsAt: local(15).toISOString(),
  until: local(15, 1).toISOString(),
};

const state = reduceAll([
  { type: 'RunStarted', data: { runId, startedAt: at, reason: 'start' } },
  {
    type: 'CodonStarted',
    data: { runId, codonId: 'one', codonName: 'one', codonIndex: 0, sessionId: 's', startTime: at },
  },
  { type: 'CodonTransitioned', data: { runId, codonId: 'one', from: 'preparing', to: 'running', at } },
  {
    type: 'CodonTransitioned',
    data: {
      runId,
      codonId: 'one',
      from: 'running',
      to: 'failed',
      at,
      failureReason: {
        type: 'usage-limit',
        retriable: true,
        message: 'Quota exceeded',
        resetsAt: WAIT.resetsAt,
      },
    },
  },
] satisfies Transition[]);
const plan = {
  name: 'p',
  recordedAt: at,
  codons: [
    { id: 'one', name: 'one' },
    { id: 'two', name: 'two' },
  ],
};
const latestRun = (usageWait?: typeof WAIT): RunRow => ({
  id: runId,
  status: 'running',
  reason: 'start',
  done: 0,
  total: 2,
  failed: ['one'],
  stopped: [],
  cost: 0,
  costEstimated: false,
  startedAt: at,
  endedAt: null,
  durationMs: 0,
  branch: null,
  ...(usageWait ? { usageWait } : {}),
});

describe('the MCP status during a usage-limit wait', () => {
  it('says the wait, counted down, and that codon.next starts the codon now; the failure says when it resets', () => {
    const status = runStatus({
      execution: '/x',
      server: 'ws://127.0.0.1:1',
      state,
      plan,
      latestRun: latestRun(WAIT),
      lastTurn: { type: 'codon.started', data: {} },
      now: NOW,
    });
    expect(status.usageWait).toEqual(WAIT);
    expect(status.codons[0]).toMatchObject({
      id: 'one',
      status: 'failed',
      why: 'usage limit (resets 15:00): Quota exceeded',
    });
    const text = statusText(status, NOW).split('\n');
    expect(text).toContain(
      'waiting for the usage limit of gemini to reset at 15:00; starts again at 15:01 (in 2 h 14 m): then one starts again (codon.next starts it now)',
    );
    expect(text.some((l) => l.startsWith('next:'))).toBe(false);
    // A wait follows nothing further: it is so already.
    expect(alreadyThere('idle', undefined, status)).toBe(true);
    expect(alreadyThere('codon_end', 'one', status)).toBe(true);
  });

  it('without a wait, none is said', () => {
    const status = runStatus({
      execution: '/x',
      server: 'ws://127.0.0.1:1',
      state,
      plan,
      latestRun: latestRun(),
      lastTurn: undefined,
      now: NOW,
    });
    expect(status.usageWait).toBeUndefined();
    expect(statusText(status, NOW)).not.toContain('waiting for the usage limit');
    expect(alreadyThere('idle', undefined, status)).toBe(false);
  });

  it('usageLimit.waiting ends a wait of the wait tool, and is news, as is its end', () => {
    const waiting = ev(
      'usageLimit.waiting',
      { ...WAIT, waitMs: 8_060_000, message: 'one waits for the usage limit of gemini to reset' },
      new Date(NOW).toISOString(),
    );
    expect(endedBy('idle', undefined, waiting)).toBe('usage-limit');
    expect(endedBy('codon_end', 'one', waiting)).toBe('usage-limit');
    const counts = { done: 0, total: 2 };
    expect(newsOf(waiting, counts)).toBe(
      'codon one waits for the usage limit of gemini to reset at 15:00, then starts again at 15:01',
    );
    const ended = ev('usageLimit.ended', { codonId: 'one', how: 'reset', message: 'reset' });
    expect(newsOf(ended, counts)).toBe('one: the usage-limit wait ended (its time came)');
  });
});
