import {
  BatchSummary,
  type JobMetrics,
  type JobResult,
  type JobState,
} from '../../../../../src/clients/batch/summary-schema.ts';

import { jobResult, metrics as sharedMetrics } from '../../../../helpers/batch-summary.ts';

/** Summaries as a batch runner writes them, parsed with the schema so that none is malformed. */

export const BATCH_DIR = '/tmp/batches/demo';
export const STARTED = '2025-06-01T10:00:00.000Z';

export function metrics(fields: Partial<JobMetrics> = {}): JobMetrics {
  return sharedMetrics(0, 3, 0, fields);
}

export function job(index: number, state: JobState, fields: Partial<JobResult> = {}): JobResult {
  return jobResult(index, fields.id ?? `job-${index}`, state, fields);
}

export function summaryOf(jobs: JobResult[], fields: Partial<BatchSummary> = {}): BatchSummary {
  return BatchSummary.parse({
    name: 'demo',
    file: '/tmp/batch.yaml',
    dir: BATCH_DIR,
    state: 'running',
    startedAt: STARTED,
    parallel: 2,
    spentUsd: jobs.reduce((sum, j) => sum + (j.metrics?.costUsd ?? 0), 0),
    counts: { pending: 0, running: 0, passed: 0, failed: 0, skipped: 0, 'infra-failed': 0 },
    jobs,
    ...fields,
  });
}

/** The time the pure tests take as now; the Ink tests pass the real one. */
export const NOW = new Date('2025-06-01T10:10:00.000Z');

/** One job in each state, in index order; the running one started 2 min 30 s before `now`. */
export function everyState(now = NOW): JobResult[] {
  return [
    job(0, 'passed', {
      durationMs: 65_000,
      metrics: metrics({ codonsDone: 3, costUsd: 0.0604, lastEvent: event('plan done') }),
    }),
    job(1, 'running', {
      url: 'ws://127.0.0.1:40001',
      startedAt: new Date(now.getTime() - 150_000).toISOString(),
      metrics: metrics({ codonsDone: 1, costUsd: 1.5, lastEvent: event('build: Bash npm test') }),
    }),
    job(2, 'failed', {
      durationMs: 3_700_000,
      reason: 'codon build failed: gate 1 (npm test) failed',
      metrics: metrics({ codonsDone: 1, costUsd: 2.25, lastEvent: event('codon build failed') }),
    }),
    job(3, 'pending'),
    job(4, 'skipped', { reason: 'the batch budget is spent' }),
    job(5, 'infra-failed', { reason: 'its run exited 3 after 2 starts', starts: 2, durationMs: 4_000 }),
  ];
}

export const event = (text: string, at = '2025-06-01T10:09:00.000Z') => ({ type: 'codon.started', at, text });
