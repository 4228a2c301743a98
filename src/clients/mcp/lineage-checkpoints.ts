import type { CheckpointInfo } from '../../core/protocol/index.ts';
import { type EngineState, latestRunId } from '../../execution/state/reducer.ts';

/**
 * The checkpoints a codon's diff can start or end at, from an execution's state: those of its latest run
 * and of the runs it grew from (rollbacks, recoveries), with each run's initial checkpoint (no codon's:
 * where its first codon starts), one per sha, oldest first: what the dashboard's Changes view offers.
 * Pure.
 */
export function lineageCheckpoints(state: EngineState): CheckpointInfo[] {
  const bySha = new Map<string, CheckpointInfo>();
  const seen = new Set<string>();
  let runId = latestRunId(state) ?? undefined;
  while (runId !== undefined && !seen.has(runId)) {
    seen.add(runId);
    const run = state.runs[runId];
    if (!run) break;
    for (const c of run.checkpoints) if (!bySha.has(c.sha)) bySha.set(c.sha, c);
    if (run.initialCheckpoint && !bySha.has(run.initialCheckpoint))
      bySha.set(run.initialCheckpoint, {
        codonId: '',
        codonName: '',
        checkpointType: 'rig-setup',
        sha: run.initialCheckpoint,
        status: 'pending',
        timestamp: run.startedAt,
      });
    runId = run.fromRunId;
  }
  return [...bySha.values()].sort((a, b) => a.timestamp.localeCompare(b.timestamp));
}
