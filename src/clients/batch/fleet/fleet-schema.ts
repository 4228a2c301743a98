import { z } from 'zod';
import { JobMetrics, JobState } from '../summary-schema.ts';

/**
 * A batch as the dashboard's fleet view shows it: `/config.json`'s `batch` (docs/dashboard.md#a-batchs-fleet).
 * Made by the dashboard's server from `<batch-dir>/summary.json` and the jobs' runtime locks at each
 * request; parsed by the page with this schema. No node: the page bundles it.
 */

/** A job's state in summary.json; `unknown` when no summary names it (a missing or unreadable file). */
export const FleetJobState = z.union([JobState, z.literal('unknown')]);
export type FleetJobState = z.infer<typeof FleetJobState>;

export const FleetJob = z.object({
  id: z.string(),
  /** Its place in the batch (0-based): `/ticket?server=N` names the job whose index is N. */
  index: z.number().int(),
  state: FleetJobState,
  reason: z.string().optional(),
  /** Its execution directory as the dashboard's machine sees it (for `ribosome log --execution`). */
  execution: z.string(),
  /** Its server's WebSocket address while one runs (from the execution's runtime lock). */
  url: z.string().optional(),
  /** Wall time: so far while it runs, else of its runs, by the dashboard's clock. */
  elapsedMs: z.number().optional(),
  axes: z.record(z.string(), z.string()),
  model: z.string().optional(),
  agent: z.string().optional(),
  metrics: JobMetrics.optional(),
});
export type FleetJob = z.infer<typeof FleetJob>;

export const BatchFleet = z.object({
  name: z.string(),
  /** The batch directory as the dashboard's machine sees it. */
  dir: z.string(),
  state: z.enum(['running', 'finished', 'stopped', 'unknown']),
  spentUsd: z.number(),
  budget: z.object({ maxCostUsd: z.number() }).optional(),
  counts: z.partialRecord(FleetJobState, z.number().int()),
  /** In job order (by index). */
  jobs: z.array(FleetJob),
  /** Why what is shown is incomplete or old (summary.json missing, half written, not a summary). */
  problem: z.string().optional(),
});
export type BatchFleet = z.infer<typeof BatchFleet>;
