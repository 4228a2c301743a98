import type { BatchSummary, JobMetrics, JobResult } from '../../../../src/clients/batch/summary-schema.ts';

/** Summaries as the batch runner writes them, for the result files' tests. */

export function metrics(over: Partial<JobMetrics> = {}): JobMetrics {
  return {
    codonsDone: 2,
    codonsTotal: 2,
    costUsd: 0.5,
    costEstimated: false,
    inputTokens: 1_000,
    outputTokens: 100,
    retries: 0,
    rollbacks: 0,
    sentinelActions: 0,
    gatedCodons: 0,
    gatesFirstTry: 0,
    ...over,
  };
}

export function job(id: string, over: Partial<JobResult> = {}): JobResult {
  return {
    id,
    index: 0,
    axes: {},
    plan: '/batch/plan.yaml',
    state: 'passed',
    execution: `jobs/${id}`,
    starts: 1,
    durationMs: 60_000,
    metrics: metrics(),
    ...over,
  };
}

export function summary(jobs: JobResult[], over: Partial<BatchSummary> = {}): BatchSummary {
  const counts = { pending: 0, running: 0, passed: 0, failed: 0, skipped: 0, 'infra-failed': 0 };
  for (const j of jobs) counts[j.state] += 1;
  return {
    name: 'nightly',
    file: '/batch/batch.yaml',
    dir: '/batch/ribosome-batches/nightly',
    state: 'finished',
    startedAt: '2026-01-01T00:00:00.000Z',
    endedAt: '2026-01-01T01:00:00.000Z',
    parallel: 2,
    spentUsd: jobs.reduce((sum, j) => sum + (j.metrics?.costUsd ?? 0), 0),
    counts,
    jobs: jobs.map((j, index) => ({ ...j, index })),
    ...over,
  };
}
