import pino from 'pino';
import { describe, expect, it } from 'vitest';
import type { ServerEvent } from '../../src/core/protocol/index.ts';
import { Recorder } from '../../src/engine/recorder.ts';
import { leftRunning, markCrashed } from '../../src/engine/recovery.ts';
import { EventBus } from '../../src/execution/journal/event-bus.ts';
import { MemoryJournal } from '../../src/execution/journal/memory-journal.ts';
import { MemoryTransitionLog, StateStore } from '../../src/execution/state/state-store.ts';

/**
 * A restarted server marks the run its predecessor left open crashed; the warning names what the
 * interrupted codon's agent spent after its last report, marked `~` when that agent's cost is
 * Ribosome's estimate (as the codon's own cost reads beside it).
 */

const at = new Date(0).toISOString();

async function runningCodon(costEstimated: boolean) {
  const bus = new EventBus({ journal: new MemoryJournal(), runId: 'run-1' });
  const store = new StateStore(new MemoryTransitionLog());
  const recorder = new Recorder({ bus, state: store, logger: pino({ level: 'silent' }) });
  await recorder.apply('RunStarted', { runId: 'run-1', startedAt: at, reason: 'start' });
  await recorder.apply('CodonStarted', {
    runId: 'run-1',
    codonId: 'kr3',
    codonName: 'KR3',
    codonIndex: 0,
    sessionId: 's',
    startTime: at,
    ...(costEstimated ? { costEstimated: true } : {}),
  });
  await recorder.apply('CodonTransitioned', {
    runId: 'run-1',
    codonId: 'kr3',
    from: 'preparing',
    to: 'running',
    at,
  });
  const seen: ServerEvent[] = [];
  bus.subscribe((e) => seen.push(e));
  return { recorder, store, seen };
}

const warningOf = (seen: ServerEvent[]) =>
  seen.find((e) => e.type === 'error' && (e.data as { code?: string }).code === 'RUN_CRASHED')?.data as
    | { message: string }
    | undefined;

describe('markCrashed', () => {
  it('marks the unreported spend of an agent whose cost is estimated with ~', async () => {
    const { recorder, store, seen } = await runningCodon(true);
    await markCrashed(recorder, store.state, 'run-1', [], undefined, () => 0.015);
    expect(warningOf(seen)?.message).toContain('; ~$0.0150 its agent spent after its last report');
    const completed = seen.find((e) => e.type === 'codon.completed')?.data;
    expect(completed).toMatchObject({ cost: 0.015, costEstimated: true });
  });

  it('leaves a reported cost unmarked', async () => {
    const { recorder, store, seen } = await runningCodon(false);
    await markCrashed(recorder, store.state, 'run-1', [], undefined, () => 0.015);
    expect(warningOf(seen)?.message).toContain('; $0.0150 its agent spent after its last report');
  });

  it('says what was still running, from what the restart ended: a rig setup command is no agent', async () => {
    const { recorder, store, seen } = await runningCodon(false);
    await markCrashed(recorder, store.state, 'run-1', [{ codonId: 'kr3', kind: 'rig' }]);
    const completed = seen.find((e) => e.type === 'codon.completed');
    const reason = completed?.type === 'codon.completed' ? completed.data.failureReason?.message : undefined;
    expect(reason).toContain('its rig setup command, left running, was ended when the server restarted');
    expect(reason).not.toContain('agent');
    expect(completed?.data).toMatchObject({ exitStatus: { type: 'killed' } });
  });

  it('names what was ended, and says so when nothing was', () => {
    expect(leftRunning([])).toBe('nothing it had started was still running when the server restarted');
    expect(leftRunning(['agent'])).toBe('its agent, left running, was ended when the server restarted');
    expect(leftRunning(['agent', 'gate', 'agent'])).toBe(
      "its agent and its verification gate's command, left running, were ended when the server restarted",
    );
  });
});
