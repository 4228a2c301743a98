import pino from 'pino';
import { describe, expect, it } from 'vitest';
import type { ServerEvent } from '../../src/core/protocol/index.ts';
import { Recorder } from '../../src/engine/recorder.ts';
import { completeUnended } from '../../src/engine/recovery.ts';
import { EventBus } from '../../src/execution/journal/event-bus.ts';
import { MemoryJournal } from '../../src/execution/journal/memory-journal.ts';
import { MemoryTransitionLog, StateStore } from '../../src/execution/state/state-store.ts';

/**
 * A server killed after a codon's end transition but before its codon.completed: the next server
 * sends the codon.completed the journal lacks, from what the state recorded (every codon.started gets
 * its end, even across a crash).
 */

const at = new Date(0).toISOString();

async function endedCodon() {
  const bus = new EventBus({ journal: new MemoryJournal(), runId: 'run-1' });
  const store = new StateStore(new MemoryTransitionLog());
  const recorder = new Recorder({ bus, state: store, logger: pino({ level: 'silent' }) });
  await recorder.apply('RunStarted', { runId: 'run-1', startedAt: at, reason: 'start' });
  await recorder.apply('CodonStarted', {
    runId: 'run-1',
    codonId: 'a',
    codonName: 'A',
    codonIndex: 0,
    sessionId: 's',
    startTime: at,
  });
  await recorder.apply('CodonTransitioned', {
    runId: 'run-1',
    codonId: 'a',
    from: 'preparing',
    to: 'running',
    at,
  });
  await recorder.apply('CodonTransitioned', {
    runId: 'run-1',
    codonId: 'a',
    from: 'running',
    to: 'failed',
    at,
    duration: 1234,
    exitStatus: { type: 'error', code: 1 },
    failureReason: { type: 'api-error', retriable: true, message: 'HTTP 500' },
  });
  const seen: ServerEvent[] = [];
  bus.subscribe((e) => seen.push(e));
  return { recorder, store, seen };
}

describe('completeUnended', () => {
  it('sends the codon.completed of a codon that ended in the state but not in the journal', async () => {
    const { recorder, store, seen } = await endedCodon();
    await completeUnended(recorder, store.state, 'run-1', () => ({ type: 'codon.started', codonId: 'a' }));
    expect(seen.map((e) => [e.type, e.data])).toEqual([
      [
        'codon.completed',
        {
          codonId: 'a',
          success: false,
          cost: 0,
          duration: 1234,
          exitStatus: { type: 'error', code: 1 },
          failureReason: { type: 'api-error', retriable: true, message: 'HTTP 500' },
        },
      ],
    ]);
  });

  it('sends nothing when the journal has the end, or the codon is still active (markCrashed ends it)', async () => {
    const { recorder, store, seen } = await endedCodon();
    await completeUnended(recorder, store.state, 'run-1', () => ({ type: 'codon.completed', codonId: 'a' }));
    await completeUnended(recorder, store.state, 'run-1', () => undefined);
    await recorder.apply('CodonStarted', {
      runId: 'run-1',
      codonId: 'b',
      codonName: 'B',
      codonIndex: 1,
      sessionId: 's2',
      startTime: at,
    });
    seen.length = 0;
    await completeUnended(recorder, store.state, 'run-1', () => ({ type: 'codon.started', codonId: 'b' }));
    expect(seen).toEqual([]);
  });
});
