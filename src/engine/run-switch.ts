import type { CheckpointRecord } from '../execution/checkpoints/index.ts';
import type { EventBus } from '../execution/journal/event-bus.ts';
import { type EngineState, runOf } from '../execution/state/reducer.ts';
import type { RuntimeCodon } from '../plan/index.ts';
import { killPoint } from '../platform/storage/kill-point.ts';
import type { CodonSteps } from './codon-steps.ts';
import type { Recorder } from './recorder.ts';
import { performRollback, type RestoreFailure, type RollbackDeps } from './rollback.ts';
import type { RollbackTarget } from './rollback-target.ts';
import { lineageAt, lineageOf, nextCodon } from './what-next.ts';

export type RunSwitchDeps = {
  state: () => EngineState;
  codons: readonly RuntimeCodon[];
  recorder: Recorder;
  steps: CodonSteps;
  bus: EventBus;
  newRunId: () => string;
  rollback: RollbackDeps;
};

export type RunSwitch = {
  fromRun: string;
  /** The from-run's checkpoints, oldest first. */
  lineage: readonly CheckpointRecord[];
  target: RollbackTarget;
  /** What was asked: a rollback command's type, or `recovery` (the run this server began goes on). */
  requested: string;
  autoRestart: boolean;
};

/**
 * Brings the agent root back to a checkpoint (the rollback events of spec 3.2) and goes on in a new
 * run from it: the old run ends `completed` and stays listable, or, for a recovery, the run this
 * server began takes over. Ending one run and beginning the next is one transaction.
 */
export async function switchRun(
  deps: RunSwitchDeps,
  { fromRun, lineage, target: { target, startOf }, requested, autoRestart }: RunSwitch,
): Promise<{ ok: true } | RestoreFailure> {
  const state = deps.state();
  // A run's initial checkpoint belongs to no codon: name the one whose start it is.
  const toCodon = target.initial
    ? (startOf ?? nextCodon(deps.codons, lineageAt(state, target.runId, target.sha))?.id ?? '')
    : target.codonId;
  const done = await performRollback(deps.rollback, {
    target,
    lineage,
    fromRun,
    fromCodon: runOf(state, fromRun)?.order.at(-1) ?? lineageOf(state, fromRun).endings.at(-1)?.codonId ?? '',
    toCodon,
    requested,
  });
  if (!done.ok) return done;
  const at = new Date().toISOString();
  const recovery = requested === 'recovery';
  killPoint(recovery ? 'recovery-restored' : 'rollback-restored');
  const toRun = recovery ? deps.bus.runId : deps.newRunId();
  if (!recovery) deps.bus.setRunId(toRun);
  await deps.recorder.applyAll([
    ...(runOf(deps.state(), fromRun)?.status === 'running'
      ? [{ type: 'RunCompleted' as const, data: { runId: fromRun, endedAt: at } }]
      : []),
    {
      type: 'RunStarted',
      data: {
        runId: toRun,
        startedAt: at,
        reason: recovery ? 'recovery' : 'rollback',
        // The lineage goes on from the run that holds the checkpoint (an ancestor for inherited ones).
        fromRunId: target.runId,
        fromCheckpoint: target.sha,
        ...(startOf ? { startOf } : {}),
      },
    },
  ]);
  await deps.steps.startCheckpointRun(toRun, target.sha);
  await deps.recorder.publish('rollback.completed', {
    fromRun,
    toRun,
    checkpoint: target.sha,
    codonId: toCodon,
    codonName: target.initial
      ? (deps.codons.find((c) => c.id === toCodon)?.name ?? toCodon)
      : target.codonName,
    checkpointType: target.initial ? 'initial' : target.checkpointType,
    autoRestart,
  });
  return { ok: true };
}
