import { err, ok, type Result } from '../core/result.ts';
import type { CheckpointRecord } from '../execution/checkpoints/index.ts';
import { isActive } from '../execution/state/codon-status.ts';
import { codonOf, costOfCodon, type EngineState, runOf } from '../execution/state/reducer.ts';
import { markEstimate } from '../llm/estimated-cost.ts';
import type { Checkpointing, Failure } from './checkpointing.ts';
import type { EndedProcess } from './leftover-agents.ts';
import type { Recorder } from './recorder.ts';
import { recoveryTarget } from './what-next.ts';

/**
 * What a server does at start about a run its predecessor left open: mark it crashed, end its
 * interrupted codon in the record, and find the clean point it goes back to.
 */

/**
 * The previous server died with its run open: the run crashed, and its active codon ended failed,
 * with its codon.completed (every codon.started gets one, even across a crash). `ended`: the
 * processes (agent, rig setup or gate command) this server found running and ended. `carried`: what the warning adds about
 * the interrupted codon's messages that carry over. `unreported`: what its agent spent beyond what
 * was journaled (an agent reporting tokens at a turn's end: unreported-spend.ts), added to its cost.
 * Returns the interrupted codon, if any.
 */
export async function markCrashed(
  recorder: Recorder,
  state: EngineState,
  runId: string,
  ended: readonly EndedProcess[],
  carried: (codonId: string) => string | undefined = () => undefined,
  unreported: (codonId: string, agentCost: number) => number = () => 0,
  /** What else the restart found of the crash (orphan checkpoints, a rollback cut short), said in the warning. */
  found?: string,
): Promise<string | undefined> {
  const run = runOf(state, runId);
  const interrupted = run
    ? run.order.map((id) => codonOf(run, id)).find((c) => c && isActive(c.status))
    : undefined;
  const now = new Date().toISOString();
  const crashed = {
    type: 'RunCrashed' as const,
    data: { runId, detectedAt: now, ...(interrupted ? { codonId: interrupted.codonId } : {}) },
  };
  if (!interrupted) {
    await recorder.apply(crashed.type, crashed.data);
    return undefined;
  }
  const message = `the server stopped while codon ${interrupted.codonId} ran; it is marked failed`;
  const carries = carried(interrupted.codonId);
  const endedHere = ended.filter((p) => p.codonId === interrupted.codonId).map((p) => p.kind);
  const extra = unreported(interrupted.codonId, interrupted.agentCost);
  const spent =
    extra > 0
      ? [
          {
            type: 'CostsIncremented' as const,
            data: { runId, codonId: interrupted.codonId, amount: extra, source: 'agent' as const },
          },
        ]
      : [];
  const counted =
    extra > 0
      ? `; ${markEstimate(`$${extra.toFixed(4)}`, interrupted.agentCostPriced)} its agent spent after its last report was read from its session record`
      : '';
  // One step: a kill in between never leaves the run crashed without its codon's codon.completed.
  await recorder.applyAll(
    [...spent, crashed],
    [
      {
        type: 'error',
        data: {
          message: `${message}${counted}${carries ? `; ${carries}` : ''}${found ? `; ${found}` : ''}`,
          codon: interrupted.codonId,
          fatal: false,
          severity: 'warning',
          code: 'RUN_CRASHED',
        },
      },
      {
        type: 'codon.completed',
        data: {
          codonId: interrupted.codonId,
          success: false,
          // What was journaled, and what the session's record adds (an estimate when the agent prices
          // none: as the state marks it once its agent part is more than nothing).
          ...costOfCodon(interrupted),
          cost: interrupted.cost + extra,
          ...(extra > 0 && interrupted.agentCostPriced ? { costEstimated: true as const } : {}),
          duration: interrupted.startTime
            ? Math.max(0, Date.parse(now) - Date.parse(interrupted.startTime))
            : 0,
          exitStatus:
            endedHere.length > 0 ? { type: 'killed', signal: 'SIGTERM' } : { type: 'error', code: -1 },
          failureReason: {
            // A crash is never retried by itself: the restarted server goes back to its start.
            type: 'unknown',
            retriable: false,
            message: `${message}; ${leftRunning(endedHere)}`,
          },
        },
      },
    ],
  );
  return interrupted.codonId;
}

const PROCESS_WORDS: Record<EndedProcess['kind'], string> = {
  agent: 'its agent',
  rig: 'its rig setup command',
  gate: "its verification gate's command",
};

/** What of the codon was still running when the server restarted, in words: only what was. Pure. */
export function leftRunning(kinds: readonly EndedProcess['kind'][]): string {
  const named = [...new Set(kinds)].map((k) => PROCESS_WORDS[k]);
  if (named.length === 0) return 'nothing it had started was still running when the server restarted';
  const what = named.length === 1 ? named[0] : `${named.slice(0, -1).join(', ')} and ${named.at(-1)}`;
  return `${what}, left running, ${named.length === 1 ? 'was' : 'were'} ended when the server restarted`;
}

/** The newest codon.started or codon.completed of a run in the journal. */
export type LastCodonEvent = (runId: string) => { type: string; codonId: string } | undefined;

/** The rollback a crashed run had begun (its rollback.started without rollback.completed), if any. */
export type InterruptedRollback = (
  runId: string,
) => { toCodon: string; checkpointType: string; toCheckpoint: string } | undefined;

/** What the crash warning says of a rollback the crash cut short: the run switch never happened. */
export function describeInterruptedRollback(rollback: NonNullable<ReturnType<InterruptedRollback>>): string {
  const to = `${rollback.toCodon || 'the run'} (${rollback.checkpointType} ${rollback.toCheckpoint.slice(0, 12)})`;
  return `a rollback to ${to} was under way and is not applied (the run never switched to it): the run goes back to its last clean checkpoint instead; send the rollback again`;
}

/**
 * A server killed between a codon's end transition and its codon.completed left the codon ended in
 * the state but not in the journal: its codon.completed is sent now, from what the state recorded.
 */
export async function completeUnended(
  recorder: Recorder,
  state: EngineState,
  runId: string,
  lastCodonEvent: LastCodonEvent,
): Promise<void> {
  const last = lastCodonEvent(runId);
  if (last?.type !== 'codon.started') return;
  const codon = codonOf(runOf(state, runId), last.codonId);
  if (!codon || isActive(codon.status) || codon.status === 'pending') return;
  await recorder.publish('codon.completed', {
    codonId: codon.codonId,
    success: codon.status === 'completed',
    ...costOfCodon(codon),
    duration: codon.duration ?? 0,
    exitStatus: codon.exitStatus ?? { type: 'error', code: -1 },
    ...(codon.failureReason ? { failureReason: codon.failureReason } : {}),
  });
}

/** Every checkpoint the state recorded (CheckpointCreated, InitialCheckpointSet), of every run. */
export function recordedShas(state: EngineState): Set<string> {
  const shas = new Set<string>();
  for (const runId of state.runOrder) {
    const run = runOf(state, runId);
    if (run?.initialCheckpoint) shas.add(run.initialCheckpoint);
    for (const c of run?.checkpoints ?? []) shas.add(c.sha);
  }
  return shas;
}

/**
 * The state decides at recovery, not git: a checkpoint of run `runId` that git holds but the state
 * never recorded was committed by a server killed before its record, so it stands for no step that
 * happened. A run's initial checkpoint holds no codon's work (the tree as the run began): it counts
 * as recorded. `orphans` are such checkpoints at the end of the branch, for recovery to set aside;
 * `clean` is the lineage the recovery may return to.
 */
export function splitRecorded(
  lineage: readonly CheckpointRecord[],
  runId: string,
  recorded: ReadonlySet<string>,
): { clean: CheckpointRecord[]; orphans: CheckpointRecord[] } {
  const counts = (c: CheckpointRecord) => c.runId !== runId || c.initial || recorded.has(c.sha);
  return { clean: lineage.filter(counts), orphans: lineage.slice(lineage.findLastIndex(counts) + 1) };
}

export type RecoveryPoint = {
  /** The run's lineage as git holds it, orphans included: what the return undoes. */
  lineage: CheckpointRecord[];
  target: CheckpointRecord;
  orphans: CheckpointRecord[];
};

/**
 * Where a crashed or failed run goes back to, with its lineage: its last clean point the state
 * recorded; a run that died before its first checkpoint (a rollback had just begun it) goes back to
 * where it began.
 */
export async function recoveryPoint(
  checkpoints: Checkpointing,
  run: { runId: string; fromCheckpoint?: string },
  recorded: ReadonlySet<string>,
): Promise<Result<RecoveryPoint, Failure>> {
  const lineage = await checkpoints.lineage(run.runId);
  if (lineage.ok) {
    const { clean, orphans } = splitRecorded(lineage.value, run.runId, recorded);
    const target = recoveryTarget(clean);
    return target
      ? ok({ lineage: lineage.value, target, orphans })
      : err({ code: 'CHECKPOINT_NOT_FOUND', message: 'it has no clean checkpoint' });
  }
  if (!run.fromCheckpoint) return lineage;
  const from = await checkpoints.bySha(run.fromCheckpoint);
  return from.ok ? ok({ lineage: [], target: from.value, orphans: [] }) : from;
}

/**
 * Sets a run's orphan checkpoints aside (its branch ends at its last recorded checkpoint again; the
 * orphans stay on a side ref) and says so: the words a crash warning carries, or undefined.
 */
export async function setAsideOrphans(
  checkpoints: Checkpointing,
  runId: string,
  { lineage, orphans }: RecoveryPoint,
): Promise<string | undefined> {
  const keep = lineage.at(-orphans.length - 1);
  if (orphans.length === 0 || !keep) return undefined;
  const named = orphans.map((c) => `${c.checkpointType} of ${c.codonId} ${c.sha.slice(0, 12)}`).join(', ');
  const moved = await checkpoints.store.setAside(runId, keep.sha);
  const where = moved.ok
    ? `kept on ${moved.value ?? 'the run branch'} for inspection`
    : `left on the run's branch (${moved.error.message})`;
  const one = orphans.length === 1;
  return `git holds ${one ? 'a checkpoint' : `${orphans.length} checkpoints`} of run ${runId} that the server was killed before recording (${named}): not a step that happened, so not returned to; ${where}`;
}
