import { join } from 'node:path';

/** What a batch directory holds (docs/batches.md#the-batch-directory). */
export type BatchLayout = {
  dir: string;
  /** The batch file as it was expanded, with its jobs: what `--web`, `export` and reports read. */
  batchRecord: string;
  /** The live state of the batch and its jobs (summary-schema.ts), rewritten whole. */
  summary: string;
  summaryMarkdown: string;
  junit: string;
  reportHtml: string;
  reportMarkdown: string;
  /** One batch process per batch directory (a runtime lock, as an execution's). */
  lock: string;
  /** Each job's execution directory. */
  jobs: string;
  /** Each job's `ribosome run` output (stdout and stderr), by job id. */
  logs: string;
  /** Each ended job's JobResult, by job id: what `--job-index` leaves for `ribosome batch report`. */
  results: string;
  /** The usage limits the jobs share (every job's `--shared-limits`; docs/batches.md#usage-limits-jobs-on-one-credential-wait-together). */
  usageLimits: string;
};

export function batchLayout(dir: string): BatchLayout {
  return {
    dir,
    batchRecord: join(dir, 'batch.json'),
    summary: join(dir, 'summary.json'),
    summaryMarkdown: join(dir, 'summary.md'),
    junit: join(dir, 'junit.xml'),
    reportHtml: join(dir, 'report.html'),
    reportMarkdown: join(dir, 'report.md'),
    lock: join(dir, 'batch.lock'),
    jobs: join(dir, 'jobs'),
    logs: join(dir, 'logs'),
    results: join(dir, 'results'),
    usageLimits: join(dir, 'usage-limits'),
  };
}

export const jobExecutionDir = (layout: BatchLayout, id: string) => join(layout.jobs, id);
export const jobLog = (layout: BatchLayout, id: string) => join(layout.logs, `${id}.log`);
export const jobResultFile = (layout: BatchLayout, id: string) => join(layout.results, `${id}.json`);
