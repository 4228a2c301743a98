import type { Job } from '../../../plan/batch-schema.ts';
import {
  type BatchSummary,
  countStates,
  type JobMetrics,
  type JobResult,
  type JobState,
} from '../summary-schema.ts';
import type { Slot } from './schedule.ts';

/** A job with what the batch knows of it now. */
export type JobNow = { job: Job; slot: Slot; metrics?: JobMetrics; url?: string };

/** A job's row of summary.json. Pure. */
export function jobResult(now: JobNow, at: Date): JobResult {
  const { job, slot } = now;
  const state: JobState = slot.kind === 'ended' ? slot.state : slot.kind;
  const running = slot.kind === 'running' ? at.getTime() - Date.parse(slot.startedAt) : 0;
  const reason =
    slot.kind === 'running'
      ? slot.stopping
      : slot.kind === 'pending' || slot.kind === 'ended' || slot.kind === 'skipped'
        ? slot.reason
        : undefined;
  return {
    id: job.id,
    index: job.index,
    axes: job.axes,
    plan: job.plan,
    ...(job.workspace === undefined ? {} : { workspace: job.workspace }),
    ...(job.model === undefined ? {} : { model: job.model }),
    ...(job.agent === undefined ? {} : { agent: job.agent }),
    state,
    ...(reason === undefined ? {} : { reason }),
    execution: `jobs/${job.id}`,
    ...(now.url === undefined || slot.kind !== 'running' ? {} : { url: now.url }),
    ...(slot.kind === 'running' && slot.pid > 0 ? { pid: slot.pid } : {}),
    starts: slot.starts,
    ...(slot.kind === 'ended' && slot.exitCode !== undefined ? { exitCode: slot.exitCode } : {}),
    ...(slot.kind === 'running' || (slot.kind === 'ended' && slot.startedAt)
      ? { startedAt: slot.startedAt }
      : {}),
    ...(slot.kind === 'ended' && slot.endedAt ? { endedAt: slot.endedAt } : {}),
    ...(slot.durationMs + running > 0 ? { durationMs: slot.durationMs + running } : {}),
    ...(slot.kind === 'running' ? { endedRunsMs: slot.durationMs } : {}),
    ...(now.metrics ? { metrics: now.metrics } : {}),
  };
}

export type BatchInfo = {
  name: string;
  file: string;
  dir: string;
  startedAt: string;
  parallel: number;
  budget?: { maxCostUsd: number };
};

/** summary.json's content. Pure. */
export function batchSummary(
  info: BatchInfo,
  jobs: readonly JobNow[],
  state: BatchSummary['state'],
  now: Date,
): BatchSummary {
  const results = jobs.map((j) => jobResult(j, now));
  const counts = countStates(results);
  return {
    name: info.name,
    file: info.file,
    dir: info.dir,
    state,
    startedAt: info.startedAt,
    ...(state === 'running' ? {} : { endedAt: now.toISOString() }),
    parallel: info.parallel,
    ...(info.budget ? { budget: info.budget } : {}),
    spentUsd: spentUsd(jobs),
    counts,
    jobs: results,
  };
}

export const spentUsd = (jobs: readonly JobNow[]) =>
  jobs.reduce((sum, j) => sum + (j.metrics?.costUsd ?? 0), 0);
