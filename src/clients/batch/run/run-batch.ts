import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import {
  acquireRuntimeLock,
  isHolderAlive,
  type LockInfo,
  readLock,
} from '../../../execution/layout/runtime-lock.ts';
import type { Job } from '../../../plan/batch-schema.ts';
import { writeFileAtomic } from '../../../platform/files/atomic-write.ts';
import { type BatchLayout, batchLayout } from '../layout.ts';
import { jobMetrics, type MetricsCache, writeResults } from '../results/index.ts';
import type { BatchSummary } from '../summary-schema.ts';
import { forceStopJob } from './force-stop.ts';
import type { JobRunSettings } from './job-args.ts';
import { latestRun } from './latest-run.ts';
import type { LoadedBatch } from './load-batch.ts';
import { defaultParallel } from './parallel.ts';
import { type BatchRunner, startBatch } from './runner.ts';

/** The batch was stopped (a signal, q) before its jobs had ended: run it again to resume (128 + SIGINT). */
export const EXIT_STOPPED = 130;

export type BatchRequest = {
  loaded: LoadedBatch;
  /** --dir; default ./ribosome-batches/<name>. */
  dir?: string;
  /** --parallel over the file's over the machine's. */
  parallel?: number;
  failFast?: boolean;
  /** Run the jobs that failed again (--retry-failed). */
  retryFailed?: boolean;
  maxCostUsd?: number;
  /** --job-index: only this job, no summary (a pod of a cluster batch, a CI matrix entry). */
  jobIndex?: number;
  settings: JobRunSettings;
  onLine?: (text: string) => void;
  onSummary?: (summary: BatchSummary) => void;
};

export type BatchStart =
  | {
      ok: true;
      layout: BatchLayout;
      runner: BatchRunner;
      finish: () => Promise<{ summary: BatchSummary; code: number }>;
    }
  | { ok: false; code: number; message: string };

/** The batch directory of a request: --dir, else ./ribosome-batches/<name>. */
/** The live batch process holding a batch directory, if one does. */
export function batchHolder(layout: BatchLayout): LockInfo | undefined {
  const holder = readLock(layout.lock);
  return holder && isHolderAlive(holder) ? holder : undefined;
}

export const batchDirOf = (name: string, dir: string | undefined) =>
  resolve(dir ?? `ribosome-batches/${name}`);

/**
 * Starts a batch (docs/batches.md): takes the batch directory's lock (one batch process at a time;
 * `--job-index` takes none: each pod runs its own job), records the expanded jobs in batch.json, and
 * runs them. `finish` waits for the end, writes the result files and gives the exit code: 0 when
 * every job passed, 1 otherwise.
 */
export function startBatchRun(request: BatchRequest): BatchStart {
  const { loaded } = request;
  const layout = batchLayout(batchDirOf(loaded.batch.name, request.dir));
  let jobs: readonly Job[] = loaded.jobs;
  if (request.jobIndex !== undefined) {
    const job = loaded.jobs[request.jobIndex];
    if (!job) {
      return {
        ok: false,
        code: 2,
        message: `--job-index ${request.jobIndex}: the batch has ${loaded.jobs.length === 1 ? '1 job (index 0)' : `${loaded.jobs.length} jobs (indexes 0 to ${loaded.jobs.length - 1})`}`,
      };
    }
    jobs = [job];
  }
  mkdirSync(layout.dir, { recursive: true });
  const holder = batchHolder(layout);
  if (request.jobIndex !== undefined && holder) {
    return {
      ok: false,
      code: 3,
      message: `a batch process (pid ${holder.pid}) runs the batch in ${layout.dir}: it runs job ${jobs[0]?.id} itself`,
    };
  }
  let release = () => {};
  if (request.jobIndex === undefined) {
    const lock = acquireRuntimeLock(layout.lock);
    if (!lock.ok) {
      return {
        ok: false,
        code: 3,
        message: `another batch process (pid ${lock.holder.pid}, since ${lock.holder.startTime}) runs the batch in ${layout.dir}; wait for it, or stop it first`,
      };
    }
    release = () => lock.lock.release();
  }
  // Every pod of a cluster batch writes the same record: `batch report` and `batch export` read it.
  writeFileAtomic(
    layout.batchRecord,
    `${JSON.stringify({ name: loaded.batch.name, file: loaded.file, jobs: loaded.jobs }, null, 2)}\n`,
  );
  const maxCostUsd = request.maxCostUsd ?? loaded.batch.budget?.maxCostUsd;
  const parallel =
    request.jobIndex !== undefined ? 1 : (request.parallel ?? loaded.batch.parallel ?? defaultParallel());
  const token = process.env.RIBOSOME_TOKEN || undefined;
  request.onLine?.(
    `${loaded.batch.name}: ${jobs.length} job${jobs.length === 1 ? '' : 's'}, ${Math.min(parallel, jobs.length)} at once, in ${layout.dir}`,
  );
  // One cache for every job: each poll folds only what was journaled since the last.
  const metricsCache: MetricsCache = new Map();
  const runner = startBatch({
    info: {
      name: loaded.batch.name,
      file: loaded.file,
      dir: layout.dir,
      startedAt: new Date().toISOString(),
      parallel,
      ...(maxCostUsd === undefined ? {} : { budget: { maxCostUsd } }),
    },
    jobs,
    layout,
    failFast: request.failFast ?? loaded.batch.failFast ?? false,
    ...(request.retryFailed ? { retryFailed: true } : {}),
    retries: loaded.batch.retries ?? 1,
    // Jobs on one credential wait together for a usage limit one of them meets; pods of a cluster
    // batch too, when the batch directory is on a volume they share.
    settings: { ...request.settings, sharedLimits: layout.usageLimits },
    env: process.env,
    metricsOf: (dir) => {
      try {
        return jobMetrics(dir, new Date(), metricsCache);
      } catch {
        // A database being made, or one that cannot be read: the job's last metrics stand.
        return undefined;
      }
    },
    latestRunOf: latestRun,
    forceStop: (url, reason) => forceStopJob(url, reason, token),
    writeSummary: request.jobIndex === undefined,
    ...(request.onLine ? { onLine: request.onLine } : {}),
    ...(request.onSummary ? { onSummary: request.onSummary } : {}),
  });
  const finish = async () => {
    try {
      const summary = await runner.done;
      if (request.jobIndex === undefined) {
        await writeResults(layout, summary, { matrix: loaded.batch.matrix !== undefined });
      }
      const code =
        summary.state === 'stopped' ? EXIT_STOPPED : summary.jobs.every((j) => j.state === 'passed') ? 0 : 1;
      return { summary, code };
    } finally {
      release();
    }
  };
  return { ok: true, layout, runner, finish };
}
