import { join, resolve } from 'node:path';

/** A start_plan request, its paths absolute. */
export type StartRequest = {
  plan: string;
  execution: string;
  workspace?: string | undefined;
  scriptedProvider?: string | undefined;
  agent?: string | undefined;
  model?: string | undefined;
  vars?: Record<string, string> | undefined;
  maxCostUsd?: number | undefined;
  autostart: boolean;
  exitWhenDone: boolean;
  fresh: boolean;
};

/**
 * The `ribosome run` arguments of a start: headless on a dynamic port, in its execution, with what the
 * request sets. Pure.
 */
export function runArgs(r: StartRequest): string[] {
  const args = ['run', r.plan, '--headless', '--port', '0', '--execution', r.execution];
  if (r.fresh) args.push('--fresh');
  if (!r.autostart) args.push('--no-autostart');
  if (r.exitWhenDone) args.push('--exit-when-done');
  if (r.workspace !== undefined) args.push('--workspace', r.workspace);
  if (r.scriptedProvider !== undefined) args.push('--scripted-provider', r.scriptedProvider);
  if (r.agent !== undefined) args.push('--agent', r.agent);
  if (r.model !== undefined) args.push('--model', r.model);
  for (const [name, value] of Object.entries(r.vars ?? {})) args.push('--var', `${name}=${value}`);
  if (r.maxCostUsd !== undefined) args.push('--max-cost', String(r.maxCostUsd));
  return args;
}

/**
 * Where a start runs when no execution is named: `./ribosome-runs/<plan name>` as `ribosome run` takes
 * it (resumed when it has runs), or with `fresh` and runs there, a new directory beside it named with
 * the time. Named here, not by the run, so the tool knows where to find its server. Pure.
 */
export function defaultExecution(
  cwd: string,
  planName: string,
  options: { fresh: boolean; hasRuns: boolean; now: Date },
): { dir: string; fresh: boolean } {
  const dir = resolve(cwd, 'ribosome-runs', planName);
  if (!options.fresh || !options.hasRuns) return { dir, fresh: false };
  const stamp = options.now.toISOString().replace(/[:.]/g, '-');
  return { dir: resolve(cwd, 'ribosome-runs', `${planName}-${stamp}`), fresh: false };
}

/** Where a started run's output goes: inside its execution, beside the server's own log. */
export const runOutputLog = (execution: string) => join(execution, '.ribosome', 'logs', 'run-output.log');
