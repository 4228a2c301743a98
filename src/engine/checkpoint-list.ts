import type { CheckpointInfo } from '../core/protocol/index.ts';
import { type EngineState, runOf } from '../execution/state/reducer.ts';

/** One checkpoint of a lineage and the run that took it; `info` is absent for a run's initial checkpoint. */
export type LineageEntry = { sha: string; runId: string; info?: CheckpointInfo };

/** A run's checkpoints with those of the runs it grew from, oldest first, initial ones as markers. */
export function lineageEntries(state: EngineState, runId: string, depth = 0): LineageEntry[] {
  const run = runOf(state, runId);
  if (!run || depth > 10_000) return [];
  let inherited: LineageEntry[] = [];
  if (run.fromRunId) {
    const parent = lineageEntries(state, run.fromRunId, depth + 1);
    const at = run.fromCheckpoint ? parent.findIndex((e) => e.sha === run.fromCheckpoint) : parent.length - 1;
    inherited = at >= 0 ? parent.slice(0, at + 1) : parent;
  }
  const own: LineageEntry[] = run.checkpoints.map((c) => ({ sha: c.sha, runId, info: c }));
  return [...inherited, ...(run.initialCheckpoint ? [{ sha: run.initialCheckpoint, runId }] : []), ...own];
}

/**
 * What checkpoint.list answers, from the state alone (no git), so it keeps working during a
 * rollback: the current run's lineage, or another run's own checkpoints. Pure.
 */
export function listCheckpoints(state: EngineState, runId: string, current: boolean): CheckpointInfo[] {
  if (current) return lineageEntries(state, runId).flatMap((e) => (e.info ? [e.info] : []));
  return runOf(state, runId)?.checkpoints ?? [];
}
