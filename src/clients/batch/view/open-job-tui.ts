import type { StdioOptions } from 'node:child_process';
import { extname, resolve } from 'node:path';
import { spawnSafely } from '../../../platform/processes/spawn-safely.ts';

/**
 * The CLI this process runs, as a command line: the same Node (process.execPath) and the same entry
 * (src/clients/cli/main.ts in a clone, dist/clients/cli/main.js once built), with the flags
 * bin/ribosome gives `ribosome tui` (its young generation capped: see bin/ribosome).
 */
export function ribosomeTuiCommand(url: string): { command: string; args: string[] } {
  const main = resolve(import.meta.dirname, `../../cli/main${extname(import.meta.filename)}`);
  return {
    command: process.execPath,
    args: ['--disable-warning=ExperimentalWarning', '--max-semi-space-size=8', main, 'tui', url],
  };
}

export type OpenJobTuiOptions = {
  /** Default 'inherit': the TUI draws on this terminal and reads its keys, until its q. */
  stdio?: StdioOptions;
  env?: NodeJS.ProcessEnv;
};

/**
 * `ribosome tui URL` on this terminal, for one job of the batch: resolves with its exit code once
 * the person quits it (q leaves the job running). Rejects when it cannot start.
 */
export async function openJobTui(url: string, options: OpenJobTuiOptions = {}): Promise<number> {
  const { command, args } = ribosomeTuiCommand(url);
  const spawned = spawnSafely(command, args, {
    stdio: options.stdio ?? 'inherit',
    env: options.env ?? process.env,
  });
  if (!spawned.ok) throw new Error(`could not start ribosome tui: ${await spawned.why}`);
  const child = spawned.child;
  return new Promise((resolve) => {
    child.once('exit', (code, signal) => resolve(code ?? (signal ? 128 : 1)));
  });
}
