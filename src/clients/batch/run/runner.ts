import { existsSync, mkdirSync } from 'node:fs';
import { executionLayout } from '../../../execution/layout/layout.ts';
import { isHolderAlive, type LockInfo, readLock } from '../../../execution/layout/runtime-lock.ts';
import type { Job } from '../../../plan/batch-schema.ts';
import { readJsonFile, writeFileAtomic } from '../../../platform/files/atomic-write.ts';
import { commandLine, isAlive } from '../../../platform/processes/process-tree.ts';
import { liveServerUrl } from '../../runs/read-execution.ts';
import { type BatchLayout, jobExecutionDir, jobLog, jobResultFile } from '../layout.ts';
import { metricsFailureText } from '../results/job-text.ts';
import { BatchSummary, type JobMetrics, JobResult } from '../summary-schema.ts';
import { type JobRunSettings, jobRunArgs } from './job-args.ts';
import { type JobProcess, lastLogLine, startJobProcess, waitForExit } from './job-process.ts';
import { type Slot, schedule } from './schedule.ts';
import { type BatchInfo, batchSummary, type JobNow, jobResult, spentUsd } from './summary.ts';
import { exitVerdict, type JobExit, resumedState, STOPPED_WITH_BATCH } from './verdict.ts';

export type RunnerOptions = {
  info: BatchInfo;
  jobs: readonly Job[];
  layout: BatchLayout;
  failFast: boolean;
  /** Starts after an infrastructure failure, beyond the first. */
  retries: number;
  settings: JobRunSettings;
  env: NodeJS.ProcessEnv;
  /** What a job's execution says now (results/job-metrics.ts). */
  metricsOf: (executionDir: string) => JobMetrics | undefined;
  /** The latest run of a job's execution, as `ribosome runs` reads it, for a batch started again. */
  latestRunOf: (executionDir: string) => Parameters<typeof resumedState>[0];
  /** Asks a running job's server to stop its codon (the batch budget, --fail-fast): whether one was stopped. */
  forceStop: (url: string, reason: string) => Promise<boolean>;
  /** Run the jobs that failed again, from their last clean checkpoint (--retry-failed). */
  retryFailed?: boolean;
  /** Every change of the summary (also written to summary.json). */
  onSummary?: (summary: BatchSummary) => void;
  /** A line for a person: a job started, ended, was retried. */
  onLine?: (text: string) => void;
  /** Keep summary.json up to date (not for `--job-index`, where each pod runs one job of many). */
  writeSummary: boolean;
  /** How often running jobs' journals are read. Default 1 s. */
  pollMs?: number;
};

export type BatchRunner = {
  /** Resolves with the final summary once every job has ended or the batch was stopped. */
  done: Promise<BatchSummary>;
  /** Stops the batch: nothing more starts, running jobs are stopped to be resumed (SIGTERM). */
  stop(): void;
  summary(): BatchSummary;
};

/**
 * The batch's I/O shell: starts each job's `ribosome run` as schedule() decides, follows the running
 * ones through their journals, records each job's end, and rewrites summary.json at every change.
 * Jobs a batch process started before (it was killed) are found as their executions left them:
 * one still held by its server is followed until that server ends; one that ended is not run again.
 */
export function startBatch(options: RunnerOptions): BatchRunner {
  const { layout, jobs } = options;
  mkdirSync(layout.jobs, { recursive: true });
  const previous = readJsonFile(layout.summary, BatchSummary);
  // The batch started when it first did: a later start resumes it.
  const info = { ...options.info, startedAt: previous?.startedAt ?? options.info.startedAt };
  const entries: JobNow[] = jobs.map((job) => ({ job, slot: initialSlot(job, options, previous) }));
  const processes = new Map<string, JobProcess>();
  let stopping = false;
  /** Jobs whose codon the batch has stopped (the budget, --fail-fast), and those being asked now. */
  const stopsConfirmed = new Set<string>();
  const stopsSending = new Set<string>();
  let wake: () => void = () => {};
  let last = '';

  const summaryNow = (state: BatchSummary['state']) => batchSummary(info, entries, state, new Date());
  const publish = (state: BatchSummary['state'] = 'running') => {
    const summary = summaryNow(state);
    const text = `${JSON.stringify(summary, null, 2)}\n`;
    if (text !== last && options.writeSummary) {
      last = text;
      writeFileAtomic(layout.summary, text);
    }
    options.onSummary?.(summary);
    return summary;
  };
  const line = (text: string) => options.onLine?.(text);

  const refresh = (entry: JobNow) => {
    const dir = jobExecutionDir(layout, entry.job.id);
    const metrics = options.metricsOf(dir);
    if (metrics) entry.metrics = metrics;
    const url = entry.slot.kind === 'running' ? liveServerUrl(dir) : undefined;
    if (url) entry.url = url;
    else delete entry.url;
  };

  const ended = (entry: JobNow, exit: JobExit, startedAt: string, adopted: boolean) => {
    // The run's end is when its exit was seen, not after its journal was read.
    const endMs = Date.now();
    processes.delete(entry.job.id);
    refresh(entry);
    const slot = entry.slot;
    if (slot.kind !== 'running') return;
    const durationMs = slot.durationMs + (endMs - Date.parse(startedAt));
    const endedAt = new Date(endMs).toISOString();
    const stoppedByUs =
      stopping &&
      (adopted
        ? resumedState(options.latestRunOf(jobExecutionDir(layout, entry.job.id))).state !== 'passed'
        : exit.code !== 0);
    if (stoppedByUs) {
      // Stopped with the batch (a signal, q): its codon was cut short, not failed. It resumes from
      // that codon's start when the batch runs again; its result file says so for that start.
      entry.slot = { kind: 'pending', starts: slot.starts, durationMs, reason: STOPPED_WITH_BATCH };
      writeFileAtomic(
        jobResultFile(layout, entry.job.id),
        `${JSON.stringify(jobResult(entry, new Date()), null, 2)}\n`,
      );
    } else if (adopted || stopping) {
      // Started by an earlier batch process: its execution says how it ended.
      const resumed = resumedState(options.latestRunOf(jobExecutionDir(layout, entry.job.id)));
      entry.slot =
        resumed.state === 'pending'
          ? { kind: 'pending', starts: slot.starts, durationMs }
          : {
              kind: 'ended',
              state: resumed.state,
              starts: slot.starts,
              durationMs,
              startedAt,
              endedAt,
              ...(resumed.reason ? { reason: resumed.reason } : {}),
            };
    } else if (exit.code === 3 && heldBy(jobExecutionDir(layout, entry.job.id))) {
      // Another run holds the execution: one an earlier batch process started just before it was
      // killed, before its lock was there to see. That run is this job's: follow it.
      const holder = heldBy(jobExecutionDir(layout, entry.job.id));
      if (holder) {
        line(
          `job ${entry.job.id}: its execution is held by a run an earlier batch process started (pid ${holder.pid}); following it`,
        );
        entry.slot = { ...slot, starts: slot.starts - 1, pid: holder.pid, startedAt: holder.startTime };
        follow(entry, holder.pid, holder.startTime);
        return;
      }
    } else {
      const log = lastLogLine(jobLog(layout, entry.job.id));
      const verdict = exitVerdict(exit, options.retries - (slot.starts - 1), log);
      if (verdict.kind === 'retry') {
        line(`job ${entry.job.id}: ${verdict.reason}; starting it again`);
        entry.slot = { kind: 'pending', starts: slot.starts, durationMs, reason: verdict.reason };
      } else {
        const reason =
          verdict.state === 'failed'
            ? (slot.stopping ?? metricsFailureText(entry.metrics) ?? verdict.reason)
            : verdict.reason;
        entry.slot = {
          kind: 'ended',
          state: verdict.state,
          starts: slot.starts,
          durationMs,
          ...(exit.code === null ? {} : { exitCode: exit.code }),
          ...(reason ? { reason } : {}),
          startedAt,
          endedAt,
        };
      }
    }
    if (entry.slot.kind === 'ended') {
      line(`job ${entry.job.id}: ${entry.slot.state}${entry.slot.reason ? ` (${entry.slot.reason})` : ''}`);
      writeFileAtomic(
        jobResultFile(layout, entry.job.id),
        `${JSON.stringify(jobResult(entry, new Date()), null, 2)}\n`,
      );
    }
    wake();
  };

  const start = (entry: JobNow) => {
    const execution = jobExecutionDir(layout, entry.job.id);
    const args = jobRunArgs(entry.job, execution, options.settings);
    const startedAt = new Date().toISOString();
    const child = startJobProcess(args, jobLog(layout, entry.job.id), options.env);
    processes.set(entry.job.id, child);
    const starts = entry.slot.starts + 1;
    entry.slot = { kind: 'running', starts, durationMs: entry.slot.durationMs, pid: child.pid, startedAt };
    line(`job ${entry.job.id}: started${starts > 1 ? ` (start ${starts})` : ''}`);
    void child.exited.then((exit) => ended(entry, exit, startedAt, false));
  };

  for (const { job, slot } of entries) {
    if (slot.kind === 'ended')
      line(
        `job ${job.id}: ${slot.state} in an earlier batch process; not run again${slot.state === 'passed' ? '' : ' (--retry-failed runs it again)'}`,
      );
    if (slot.kind === 'pending' && slot.reason === STOPPED_WITH_BATCH)
      line(`job ${job.id}: resumes where the batch stopped it`);
  }
  /** Follows a job's run that this process did not start, until it ends. */
  const follow = (entry: JobNow, pid: number, startedAt: string) => {
    void waitForExit(pid).then(() => ended(entry, { code: null, signal: null }, startedAt, true));
  };
  // Jobs an earlier batch process left running: followed until their servers end.
  for (const entry of entries) {
    if (entry.slot.kind !== 'running') continue;
    const { pid, startedAt } = entry.slot;
    line(`job ${entry.job.id}: still running from an earlier batch process (pid ${pid}); following it`);
    follow(entry, pid, startedAt);
  }
  mkdirSync(layout.results, { recursive: true });

  const loop = async (): Promise<BatchSummary> => {
    for (;;) {
      for (const entry of entries)
        if (entry.slot.kind === 'running' || entry.metrics === undefined) refresh(entry);
      const budget = options.info.budget;
      const decision = schedule({
        slots: entries.map((e) => ({ id: e.job.id, slot: e.slot })),
        parallel: options.info.parallel,
        failFast: options.failFast,
        budget: budget ? { maxCostUsd: budget.maxCostUsd, spentUsd: spentUsd(entries) } : undefined,
        stopping,
      });
      for (const { id, reason } of decision.skip) {
        const entry = entries.find((e) => e.job.id === id);
        if (entry) {
          entry.slot = {
            kind: 'skipped',
            starts: entry.slot.starts,
            durationMs: entry.slot.durationMs,
            reason,
          };
          line(`job ${id}: skipped (${reason})`);
        }
      }
      if (decision.stopRunning) {
        for (const entry of entries) {
          if (entry.slot.kind !== 'running' || entry.slot.stopping !== undefined) continue;
          entry.slot = { ...entry.slot, stopping: `stopped: ${decision.stopRunning}` };
          line(`job ${entry.job.id}: stopping its codon (${decision.stopRunning})`);
        }
      }
      // A stop sent between two codons is refused (no codon runs): it is sent again at each turn
      // until a codon of the job has stopped, or the job has ended.
      for (const entry of entries) {
        const slot = entry.slot;
        if (slot.kind !== 'running' || slot.stopping === undefined || !entry.url) continue;
        if (stopsConfirmed.has(entry.job.id) || stopsSending.has(entry.job.id)) continue;
        stopsSending.add(entry.job.id);
        void options
          .forceStop(entry.url, slot.stopping.replace(/^stopped: /, ''))
          .then((stopped) => {
            if (stopped) stopsConfirmed.add(entry.job.id);
          })
          .catch(() => {})
          .finally(() => stopsSending.delete(entry.job.id));
      }
      for (const id of decision.start) {
        const entry = entries.find((e) => e.job.id === id);
        if (entry) start(entry);
      }
      const active = entries.some(
        (e) => e.slot.kind === 'running' || (!stopping && e.slot.kind === 'pending'),
      );
      if (!active) break;
      publish();
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, options.pollMs ?? 1_000);
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
    return publish(stopping ? 'stopped' : 'finished');
  };

  const done = loop();
  return {
    done,
    stop: () => {
      if (stopping) return;
      stopping = true;
      line('stopping: no job starts; running ones are stopped and will resume when the batch runs again');
      for (const child of processes.values()) void child.stop(15_000);
      // Runs an earlier batch process started are this batch's to stop too (they resume as well).
      for (const entry of entries) {
        if (entry.slot.kind !== 'running' || processes.has(entry.job.id)) continue;
        try {
          process.kill(entry.slot.pid, 'SIGTERM');
        } catch {
          // Already gone: its end is seen as it is followed.
        }
      }
      wake();
    },
    summary: () => summaryNow(stopping ? 'stopped' : 'running'),
  };
}

/** Whether `pid` is a job's `ribosome run` for this execution (alive, and its command names the directory). */
function isJobRun(pid: number, executionDir: string): boolean {
  if (pid <= 0 || pid === process.pid || !isAlive(pid)) return false;
  const command = commandLine(pid);
  return command === undefined || command.includes(executionDir);
}

/** The live server holding an execution, if one does. */
function heldBy(executionDir: string): LockInfo | undefined {
  const holder = readLock(executionLayout(executionDir).lockFile);
  return holder && isHolderAlive(holder) ? holder : undefined;
}

/** Where a job stands when the batch starts: from its execution (and its server, if one holds it). */
function initialSlot(job: Job, options: RunnerOptions, previous: BatchSummary | undefined): Slot {
  // The batch's summary (rewritten at every change), else the job's own result file (what a
  // --job-index run leaves, written when the job ends or is stopped).
  const before =
    previous?.jobs.find((j) => j.id === job.id) ??
    readJsonFile(jobResultFile(options.layout, job.id), JobResult);
  const starts = before?.starts ?? 0;
  // The time of its ended runs only: one still running is timed from its start again.
  const durationMs = before?.endedRunsMs ?? before?.durationMs ?? 0;
  const dir = jobExecutionDir(options.layout, job.id);
  const holder = heldBy(dir);
  if (holder) {
    return { kind: 'running', starts, durationMs, pid: holder.pid, startedAt: holder.startTime };
  }
  // A run the earlier batch process started just before it was killed, still loading (its lock not
  // taken yet): followed, not started a second time.
  if (before?.state === 'running' && before.pid !== undefined && isJobRun(before.pid, dir)) {
    return {
      kind: 'running',
      starts,
      durationMs,
      pid: before.pid,
      startedAt: before.startedAt ?? new Date().toISOString(),
    };
  }
  const latest = existsSync(executionLayout(dir).database) ? options.latestRunOf(dir) : undefined;
  // The batch recorded a start whose run never began (killed while loading): the latest run the
  // execution has is an older one, and says nothing of this start. The job is to be run.
  const startNeverRan =
    before?.state === 'running' &&
    before.startedAt !== undefined &&
    (latest === undefined || Date.parse(latest.startedAt) < Date.parse(before.startedAt));
  const resumed = startNeverRan ? { state: 'pending' as const } : resumedState(latest);
  const stoppedByBatch = before?.state === 'pending' && before.reason === STOPPED_WITH_BATCH;
  if (resumed.state === 'pending' || (resumed.state === 'failed' && stoppedByBatch)) {
    return { kind: 'pending', starts, durationMs, ...(stoppedByBatch ? { reason: STOPPED_WITH_BATCH } : {}) };
  }
  if (resumed.state === 'failed' && options.retryFailed) return { kind: 'pending', starts, durationMs };
  // What the batch recorded is kept when the execution agrees with it (a run since, by hand, wins).
  const agrees = before?.state === resumed.state;
  return {
    kind: 'ended',
    state: resumed.state,
    starts,
    durationMs,
    ...(((agrees ? before?.reason : undefined) ?? resumed.reason)
      ? { reason: (agrees ? before?.reason : undefined) ?? resumed.reason }
      : {}),
    ...(agrees && before?.exitCode !== undefined ? { exitCode: before.exitCode } : {}),
    ...(before?.startedAt ? { startedAt: before.startedAt } : {}),
    ...(agrees && before?.endedAt ? { endedAt: before.endedAt } : {}),
  };
}
