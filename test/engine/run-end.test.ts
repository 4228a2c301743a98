import { describe, expect, it } from 'vitest';
import { runEndAtShutdown } from '../../src/engine/run-end.ts';
import { reduceAll } from '../../src/execution/state/reducer.ts';
import type { Transition } from '../../src/execution/state/transitions.ts';

const at = '2026-01-01T00:00:00.000Z';
const started: Transition = { type: 'RunStarted', data: { runId: 'r1', startedAt: at, reason: 'start' } };

/** Run r1 in which codon `one` ends `to` (through preparing and running). */
function endedCodon(to: 'completed' | 'failed' | 'skipped' | 'stopped'): Transition[] {
  return [
    started,
    {
      type: 'CodonStarted',
      data: { runId: 'r1', codonId: 'one', codonName: 'one', codonIndex: 0, sessionId: 's', startTime: at },
    },
    {
      type: 'CodonTransitioned',
      data: { runId: 'r1', codonId: 'one', from: 'preparing', to: 'running', at },
    },
    { type: 'CodonTransitioned', data: { runId: 'r1', codonId: 'one', from: 'running', to, at } },
  ];
}

type End = { type: 'RunCompleted' | 'RunFailed'; reason?: string } | undefined;

describe("the run's end when its server stops", () => {
  it.each<{ what: string; history: Transition[]; end: End }>([
    { what: 'no run yet', history: [], end: undefined },
    { what: 'a run with no codon run', history: [started], end: { type: 'RunCompleted' } },
    { what: 'a codon completed last', history: endedCodon('completed'), end: { type: 'RunCompleted' } },
    { what: 'a codon skipped last', history: endedCodon('skipped'), end: { type: 'RunCompleted' } },
    {
      what: 'a codon failed last',
      history: endedCodon('failed'),
      end: { type: 'RunFailed', reason: 'codon one failed; SIGTERM' },
    },
    {
      what: 'a codon stopped last',
      history: endedCodon('stopped'),
      end: { type: 'RunFailed', reason: 'codon one stopped; SIGTERM' },
    },
    {
      what: 'a run already ended',
      history: [...endedCodon('completed'), { type: 'RunCompleted', data: { runId: 'r1', endedAt: at } }],
      end: undefined,
    },
  ])('$what: $end.type', ({ history, end }) => {
    const found = runEndAtShutdown(reduceAll(history), 'SIGTERM', at);
    expect(found?.type).toBe(end?.type);
    expect(found?.data.runId).toBe(end ? 'r1' : undefined);
    expect(found?.type === 'RunFailed' ? found.data.reason : undefined).toBe(end?.reason);
  });
});
