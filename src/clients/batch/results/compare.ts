import type { JobResult, JobState } from '../summary-schema.ts';

/**
 * The comparison of a matrix batch (report.md, report.html): its jobs grouped by their matrix axes
 * but `repeat` (the repeats of one combination are its samples), each group's success rate, first-try
 * gates, spread of cost, time and output tokens, and its retries, rollbacks and sentinel actions.
 * Pure.
 */
export type CompareOptions = {
  /** [false] Jobs that differ only in their workspace form one group (the workspace is then no column). */
  poolWorkspaces?: boolean;
};

/** Middle and spread of some numbers: min–max always, the quartiles from four numbers on. */
export type Spread = { n: number; min: number; median: number; max: number; p25?: number; p75?: number };

/** One job as the charts draw it: a dot of its cost and of its time. */
export type JobPoint = { id: string; state: JobState; costUsd?: number; durationMs?: number };

export type Group = {
  /** The axis values every job of the group has (axis -> value); empty for a job listed by hand. */
  axes: Record<string, string>;
  /** The axis values on one line (`every job` when the only axis is `repeat`), or a listed job's id. */
  label: string;
  jobIds: string[];
  passed: number;
  failed: number;
  infraFailed: number;
  /** Never ran, or not yet: pending, running, skipped. */
  notRun: number;
  /** passed / (passed + failed): null before any of its jobs has a verdict. Infrastructure failures are no verdict. */
  successRate: number | null;
  gatedCodons: number;
  gatesFirstTry: number;
  /** gatesFirstTry / gatedCodons, null without gates. */
  gatesFirstTryRate: number | null;
  /** Over the jobs that ended (passed, failed or infra-failed) and say so. */
  costUsd?: Spread;
  /** Part of a cost is Ribosome's estimate (an agent that reports no cost): shown `~$…`. */
  costEstimated: boolean;
  durationMs?: Spread;
  outputTokens?: Spread;
  retries: number;
  rollbacks: number;
  sentinelActions: number;
  points: JobPoint[];
};

export type Comparison = {
  /** The axes the groups differ by, in the order the matrix expands them. */
  axes: string[];
  groups: Group[];
};

const ENDED: ReadonlySet<JobState> = new Set(['passed', 'failed', 'infra-failed']);

export function compareJobs(jobs: readonly JobResult[], options: CompareOptions = {}): Comparison {
  const kept = (axis: string) => axis !== 'repeat' && !(options.poolWorkspaces && axis === 'workspace');
  const axes = [...new Set(jobs.flatMap((j) => Object.keys(j.axes).filter(kept)))];
  const members = new Map<string, { axes: Record<string, string>; label: string; jobs: JobResult[] }>();
  for (const job of jobs) {
    const own = Object.fromEntries(
      axes.flatMap((a) => (job.axes[a] === undefined ? [] : [[a, job.axes[a]]])),
    );
    const listed = Object.keys(job.axes).length === 0;
    // A job listed by hand is a configuration of its own; matrix jobs group by their axis values.
    const key = JSON.stringify(listed ? ['job', job.id] : axes.map((a) => own[a] ?? null));
    const label = listed ? job.id : Object.values(own).join(' · ') || 'every job';
    const group = members.get(key) ?? { axes: own, label, jobs: [] };
    group.jobs.push(job);
    members.set(key, group);
  }
  return { axes, groups: [...members.values()].map((g) => groupOf(g.axes, g.label, g.jobs)) };
}

function groupOf(axes: Record<string, string>, label: string, jobs: readonly JobResult[]): Group {
  const count = (state: JobState) => jobs.filter((j) => j.state === state).length;
  const sum = (of: (j: JobResult) => number | undefined) => jobs.reduce((s, j) => s + (of(j) ?? 0), 0);
  const ended = jobs.filter((j) => ENDED.has(j.state));
  const values = (of: (j: JobResult) => number | undefined) =>
    ended.flatMap((j) => {
      const value = of(j);
      return value === undefined ? [] : [value];
    });
  const passed = count('passed');
  const failed = count('failed');
  const gatedCodons = sum((j) => j.metrics?.gatedCodons);
  const gatesFirstTry = sum((j) => j.metrics?.gatesFirstTry);
  const costUsd = spread(values((j) => j.metrics?.costUsd));
  const durationMs = spread(values((j) => j.durationMs));
  const outputTokens = spread(values((j) => j.metrics?.outputTokens));
  return {
    axes,
    label,
    jobIds: jobs.map((j) => j.id),
    passed,
    failed,
    infraFailed: count('infra-failed'),
    notRun: jobs.length - passed - failed - count('infra-failed'),
    successRate: passed + failed > 0 ? passed / (passed + failed) : null,
    gatedCodons,
    gatesFirstTry,
    gatesFirstTryRate: gatedCodons > 0 ? gatesFirstTry / gatedCodons : null,
    ...(costUsd ? { costUsd } : {}),
    costEstimated: ended.some((j) => j.metrics?.costEstimated === true),
    ...(durationMs ? { durationMs } : {}),
    ...(outputTokens ? { outputTokens } : {}),
    retries: sum((j) => j.metrics?.retries),
    rollbacks: sum((j) => j.metrics?.rollbacks),
    sentinelActions: sum((j) => j.metrics?.sentinelActions),
    points: ended.map((j) => ({
      id: j.id,
      state: j.state,
      ...(j.metrics ? { costUsd: j.metrics.costUsd } : {}),
      ...(j.durationMs === undefined ? {} : { durationMs: j.durationMs }),
    })),
  };
}

/** The spread of `values`, undefined for none. */
export function spread(values: readonly number[]): Spread | undefined {
  const sorted = [...values].sort((a, b) => a - b);
  const [min] = sorted;
  const max = sorted.at(-1);
  if (min === undefined || max === undefined) return undefined;
  const n = sorted.length;
  return {
    n,
    min,
    median: quantile(sorted, 0.5),
    max,
    ...(n >= 4 ? { p25: quantile(sorted, 0.25), p75: quantile(sorted, 0.75) } : {}),
  };
}

/** The q-quantile of sorted numbers, between the two nearest ranks (as R's and NumPy's default). */
function quantile(sorted: readonly number[], q: number): number {
  const at = (sorted.length - 1) * q;
  const below = sorted[Math.floor(at)] ?? Number.NaN;
  const above = sorted[Math.ceil(at)] ?? Number.NaN;
  const f = at - Math.floor(at);
  // Rounding may step a hair outside the two ranks: the quantile stays between them.
  return Math.min(above, Math.max(below, below * (1 - f) + above * f));
}
