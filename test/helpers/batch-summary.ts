import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  BatchSummary,
  type JobMetrics,
  type JobResult,
  JobState,
} from '../../src/clients/batch/summary-schema.ts';

/** A job of a summary: its id and state, the rest as a runner would write them (overridable). */
export function jobResult(
  index: number,
  id: string,
  state: JobState,
  extra: Partial<JobResult> = {},
): JobResult {
  return {
    id,
    index,
    axes: {},
    plan: '/plans/plan.yaml',
    state,
    execution: `jobs/${id}`,
    starts: state === 'pending' || state === 'skipped' ? 0 : 1,
    ...extra,
  };
}

/** Metrics as a job's journal gives them: `done` of `total` codons, `cost` spent, a last event. */
export function metrics(done: number, total: number | null, cost: number, extra: Partial<JobMetrics> = {}) {
  return {
    codonsDone: done,
    codonsTotal: total,
    costUsd: cost,
    costEstimated: false,
    inputTokens: 0,
    outputTokens: 0,
    retries: 0,
    rollbacks: 0,
    sentinelActions: 0,
    gatedCodons: 0,
    gatesFirstTry: 0,
    ...extra,
  } satisfies JobMetrics;
}

/** A batch summary of these jobs (counts and spend from them), checked by the schema as a reader will. */
export function batchSummary(
  dir: string,
  jobs: JobResult[],
  extra: Partial<BatchSummary> = {},
): BatchSummary {
  const counts = Object.fromEntries(
    JobState.options.map((s) => [s, jobs.filter((j) => j.state === s).length]),
  );
  return BatchSummary.parse({
    name: 'fleet-test',
    file: join(dir, 'batch.yaml'),
    dir,
    state: jobs.some((j) => j.state === 'running' || j.state === 'pending') ? 'running' : 'finished',
    startedAt: new Date(Date.now() - 60_000).toISOString(),
    parallel: 2,
    spentUsd: jobs.reduce((sum, j) => sum + (j.metrics?.costUsd ?? 0), 0),
    counts,
    jobs,
    ...extra,
  });
}

/** Writes `<dir>/summary.json` whole, as the runner does (a temp file renamed over it). */
export function writeSummary(dir: string, summary: BatchSummary): void {
  mkdirSync(dir, { recursive: true });
  const tmp = join(dir, 'summary.json.tmp');
  writeFileSync(tmp, `${JSON.stringify(summary, null, 2)}\n`);
  renameSync(tmp, join(dir, 'summary.json'));
}
