import { isAbsolute, relative, resolve } from 'node:path';
import { batchLayout, jobExecutionDir } from '../layout.ts';
import type { BatchSummary, JobResult } from '../summary-schema.ts';
import type { BatchFleet, FleetJob } from './fleet-schema.ts';
import { notRunningMessage } from './job-words.ts';

/**
 * What the dashboard knows of a batch: its summary (with why it may be old), or without one the
 * jobs its batch record lists (id and index), or nothing, and why.
 */
export type Known =
  | { kind: 'summary'; summary: BatchSummary; problem?: string }
  | { kind: 'record'; name?: string; jobs: readonly { id: string; index: number }[]; problem: string }
  | { kind: 'nothing'; problem: string };

/** Where a job's server is: its WebSocket address from its execution's runtime lock, if one runs. */
export type LiveServer = (executionDir: string) => string | undefined;

/**
 * The fleet of the batch in `dir` (an absolute path): one entry per job, in job order, each with
 * its live address when its server runs. Only jobs that may run (running, or of unknown state) have
 * their lock read: a batch of thousands costs as many reads as jobs run at once. Pure but for `live`.
 */
export function fleetOf(dir: string, known: Known, live: LiveServer, now: number): BatchFleet {
  const layout = batchLayout(dir);
  const withUrl = (job: Omit<FleetJob, 'url'>): FleetJob => {
    const url = job.state === 'running' || job.state === 'unknown' ? live(job.execution) : undefined;
    return url === undefined ? job : { ...job, url };
  };
  if (known.kind !== 'summary') {
    const jobs = known.kind === 'record' ? [...known.jobs].sort((a, b) => a.index - b.index) : [];
    return {
      name: (known.kind === 'record' ? known.name : undefined) ?? lastSegment(dir),
      dir,
      state: 'unknown',
      spentUsd: 0,
      counts: jobs.length > 0 ? { unknown: jobs.length } : {},
      jobs: jobs.map((j) =>
        withUrl({
          id: j.id,
          index: j.index,
          state: 'unknown',
          execution: jobExecutionDir(layout, j.id),
          axes: {},
        }),
      ),
      problem: known.problem,
    };
  }
  const { summary } = known;
  const jobs = [...summary.jobs]
    .sort((a, b) => a.index - b.index)
    .map((job) => withUrl(fleetJob(dir, job, now)));
  return {
    name: summary.name,
    dir,
    state: summary.state,
    spentUsd: summary.spentUsd,
    ...(summary.budget ? { budget: summary.budget } : {}),
    counts: summary.counts,
    jobs,
    ...(known.problem === undefined ? {} : { problem: known.problem }),
  };
}

function fleetJob(dir: string, job: JobResult, now: number): Omit<FleetJob, 'url'> {
  const elapsed = elapsedOf(job, now);
  return {
    id: job.id,
    index: job.index,
    state: job.state,
    ...(job.reason === undefined ? {} : { reason: job.reason }),
    execution: executionOf(dir, job),
    ...(elapsed === undefined ? {} : { elapsedMs: elapsed }),
    axes: job.axes,
    ...(job.model === undefined ? {} : { model: job.model }),
    ...(job.agent === undefined ? {} : { agent: job.agent }),
    ...(job.metrics === undefined ? {} : { metrics: job.metrics }),
  };
}

/**
 * The job's execution directory under this batch directory: summary.json names it relative to the
 * batch (`jobs/<id>`), so a batch directory moved or mounted elsewhere (a pod's volume) still finds
 * it; a name that would leave the batch directory is not followed.
 */
function executionOf(dir: string, job: JobResult): string {
  const path = resolve(dir, job.execution);
  const inside = relative(dir, path);
  return inside === '' || inside.startsWith('..') || isAbsolute(inside)
    ? jobExecutionDir(batchLayout(dir), job.id)
    : path;
}

/** Running: since its start; ended: its runs' wall time (or from its start to its end). */
function elapsedOf(job: JobResult, now: number): number | undefined {
  const started = job.startedAt === undefined ? Number.NaN : Date.parse(job.startedAt);
  if (job.state === 'running') return Number.isFinite(started) ? Math.max(0, now - started) : undefined;
  if (job.durationMs !== undefined) return job.durationMs;
  const ended = job.endedAt === undefined ? Number.NaN : Date.parse(job.endedAt);
  return Number.isFinite(started) && Number.isFinite(ended) ? Math.max(0, ended - started) : undefined;
}

const lastSegment = (dir: string) => dir.split(/[\\/]/).filter(Boolean).pop() ?? dir;

/** Where a page's ticket for job `index` (named `id` by the page) is to be asked, or why nowhere. */
export type TicketTarget =
  | { ok: true; url: string }
  | { ok: false; refusal: 'unknown_server' | 'not_running'; message: string };

export function ticketTarget(fleet: BatchFleet, index: number, id: string | undefined): TicketTarget {
  const job = fleet.jobs.find((j) => j.index === index);
  if (job === undefined || (id !== undefined && job.id !== id)) {
    const what = id === undefined ? `job ${index}` : `job ${JSON.stringify(id)} at index ${index}`;
    const now = job === undefined ? '' : ` (job ${index} is ${JSON.stringify(job.id)})`;
    return {
      ok: false,
      refusal: 'unknown_server',
      message: `batch ${fleet.name} has no ${what}${now}; reload the page to see its jobs`,
    };
  }
  if (job.url !== undefined) return { ok: true, url: job.url };
  return { ok: false, refusal: 'not_running', message: notRunningMessage(job) };
}
