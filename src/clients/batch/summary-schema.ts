import { z } from 'zod';
import { UsageLimitWait } from '../../core/protocol/usage-limit-events.ts';

/**
 * `<batch-dir>/summary.json` (docs/batches.md#results): the batch and each job's state, rewritten
 * whole (atomically) whenever a job changes, so a reader (the dashboard's fleet view, CI, a person)
 * always sees a complete file.
 */

/**
 * Where a job is: not started; running (its `ribosome run` is alive); passed (the plan ran, exit 0);
 * failed (a codon failed or was stopped, exit 1); skipped (never started: the batch budget was spent,
 * or --fail-fast); infra-failed (its run exited 2, 3 or 4, or died of a signal, after every retry).
 */
export const JobState = z.enum(['pending', 'running', 'passed', 'failed', 'skipped', 'infra-failed']);
export type JobState = z.infer<typeof JobState>;

/** What the job's journal says; absent until its execution has one. */
export const JobMetrics = z.object({
  codonsDone: z.number().int(),
  codonsTotal: z.number().int().nullable(),
  /** The codon now running, or the last one started. */
  currentCodon: z.string().optional(),
  costUsd: z.number(),
  /** Part of costUsd is Ribosome's estimate (an agent that reports no cost). */
  costEstimated: z.boolean(),
  inputTokens: z.number().int(),
  outputTokens: z.number().int(),
  /** Codon starts beyond each codon's first: automatic retries, verify rounds, redos. */
  retries: z.number().int(),
  rollbacks: z.number().int(),
  /** sentinel.action events: messages, halts, rollbacks, redos by sentinels. */
  sentinelActions: z.number().int(),
  /** Codons with verify gates, and those whose gates all passed on their first round. */
  gatedCodons: z.number().int(),
  gatesFirstTry: z.number().int(),
  /** The first codon whose last ending failed or stopped: its id and why. */
  failure: z.object({ codonId: z.string(), reason: z.string(), message: z.string() }).optional(),
  /** The newest journaled event: its type, time and a one-line summary. */
  lastEvent: z.object({ type: z.string(), at: z.string(), text: z.string() }).optional(),
  /** The job's run waits for an agent's usage limit to reset: the codon that starts again, and when. */
  usageWait: UsageLimitWait.optional(),
});
export type JobMetrics = z.infer<typeof JobMetrics>;

export const JobResult = z.object({
  id: z.string(),
  index: z.number().int(),
  /** Matrix axis values (axis -> value), empty for a listed job. */
  axes: z.record(z.string(), z.string()),
  plan: z.string(),
  workspace: z.string().optional(),
  model: z.string().optional(),
  agent: z.string().optional(),
  state: JobState,
  /** Why it is in that state, in words ("codon build failed: gate 1 (npm test) failed", "the batch budget is spent"). */
  reason: z.string().optional(),
  /** Its execution directory, relative to the batch directory (jobs/<id>). */
  execution: z.string(),
  /** Its run's WebSocket address while it runs. */
  url: z.string().optional(),
  /** Its run's process while it runs (a batch started again follows it if it still runs). */
  pid: z.number().int().optional(),
  /** Times its `ribosome run` was started (a retry after an infrastructure failure counts). */
  starts: z.number().int(),
  exitCode: z.number().int().optional(),
  startedAt: z.string().optional(),
  endedAt: z.string().optional(),
  /** Wall time of its runs under this batch, summed over starts. */
  durationMs: z.number().optional(),
  /** The part of durationMs its ended runs took (a running one's time is counted from its start again). */
  endedRunsMs: z.number().optional(),
  metrics: JobMetrics.optional(),
});
export type JobResult = z.infer<typeof JobResult>;

export const BatchSummary = z.object({
  name: z.string(),
  /** The batch file, absolute. */
  file: z.string(),
  /** The batch directory, absolute. */
  dir: z.string(),
  state: z.enum(['running', 'finished', 'stopped']),
  startedAt: z.string(),
  endedAt: z.string().optional(),
  parallel: z.number().int(),
  budget: z.object({ maxCostUsd: z.number() }).optional(),
  /** All jobs' cost so far. */
  spentUsd: z.number(),
  counts: z.record(JobState, z.number().int()),
  jobs: z.array(JobResult),
});
export type BatchSummary = z.infer<typeof BatchSummary>;

/** How many jobs are in each state. */
export function countStates(jobs: readonly { state: JobState }[]): Record<JobState, number> {
  const counts = Object.fromEntries(JobState.options.map((state) => [state, 0])) as Record<JobState, number>;
  for (const job of jobs) counts[job.state] += 1;
  return counts;
}
