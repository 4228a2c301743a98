import type { Job } from '../../../plan/batch-schema.ts';

/** What the batch passes on to every job's run (its own options that a run shares). */
export type JobRunSettings = {
  /** --host for every job's server (default 127.0.0.1). */
  host?: string;
  /** A fixed port (a pod of a cluster batch); absent: dynamic. */
  port?: number;
  config?: string;
  scriptedProvider?: string;
  providerBaseUrl?: string;
  sandbox?: string | boolean;
  /** The directory of usage limits every job shares (the batch directory's usage-limits/). */
  sharedLimits?: string;
};

/**
 * The `ribosome run` arguments of a job: headless, to its end, in its own execution, on a dynamic
 * port unless one is given, with its own budget. The batch's budget is not passed down: a run's
 * proxy refuses a request that could cost more than the run's whole limit, so a job started with
 * what little the batch has left would fail at its first request; the batch stops jobs itself. Pure.
 */
export function jobRunArgs(job: Job, execution: string, settings: JobRunSettings): string[] {
  const args = ['run', job.plan, '--headless', '--exit-when-done', '--execution', execution];
  args.push('--port', String(settings.port ?? 0));
  if (settings.host !== undefined) args.push('--host', settings.host);
  if (job.model !== undefined) args.push('--model', job.model);
  if (job.agent !== undefined) args.push('--agent', job.agent);
  if (job.workspace !== undefined) args.push('--workspace', job.workspace);
  for (const [name, value] of Object.entries(job.vars)) args.push('--var', `${name}=${value}`);
  if (job.budget?.maxCostUsd !== undefined) args.push('--max-cost', String(job.budget.maxCostUsd));
  if (job.budget?.maxDurationMs !== undefined) args.push('--max-time', String(job.budget.maxDurationMs));
  if (settings.config !== undefined) args.push('--config', settings.config);
  if (settings.scriptedProvider !== undefined) args.push('--scripted-provider', settings.scriptedProvider);
  if (settings.providerBaseUrl !== undefined) args.push('--provider-base-url', settings.providerBaseUrl);
  if (settings.sandbox === false) args.push('--no-sandbox');
  else if (typeof settings.sandbox === 'string') args.push('--sandbox', settings.sandbox);
  if (settings.sharedLimits !== undefined) args.push('--shared-limits', settings.sharedLimits);
  return args;
}
