import { spawn } from 'node:child_process';
import { closeSync, mkdirSync, openSync } from 'node:fs';
import { dirname, extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { endGroup, killTree } from '../../platform/processes/process-tree.ts';

/** The CLI's entry, as this process runs it (src/*.ts in a clone, dist/*.js in the package). */
export const CLI_MAIN = fileURLToPath(new URL(`../cli/main${extname(import.meta.url)}`, import.meta.url));

/** How a background `ribosome` process ended. */
export type ProcessExit = { code: number | null; signal: NodeJS.Signals | null };

/** A `ribosome` command started in the background by this process. */
export type RibosomeProcess = {
  pid: number;
  exited: Promise<ProcessExit>;
  /** SIGTERM (a run stops its agents and keeps what is done, to be resumed); its tree killed after the grace. */
  stop(graceMs: number): Promise<void>;
  /** Lets this process exit while the command runs on (it is left to its end). */
  release(): void;
};

/**
 * Starts `ribosome ARGS` in a process group of its own (a Ctrl-C at this process's terminal is not
 * the command's; a kill -9 of this process leaves it running to its end), its output appended to
 * `logFile`. `ribosome batch` starts its jobs so, and `ribosome mcp` the plans it is asked to run.
 */
export function startRibosomeProcess(
  args: readonly string[],
  logFile: string,
  env: NodeJS.ProcessEnv,
): RibosomeProcess {
  mkdirSync(dirname(logFile), { recursive: true });
  const log = openSync(logFile, 'a');
  let child: ReturnType<typeof spawn>;
  try {
    child = spawn(process.execPath, ['--disable-warning=ExperimentalWarning', CLI_MAIN, ...args], {
      detached: true,
      stdio: ['ignore', log, log],
      env,
    });
  } finally {
    closeSync(log);
  }
  const exited = new Promise<ProcessExit>((resolve) => {
    child.once('error', () => resolve({ code: 127, signal: null }));
    child.once('exit', (code, signal) => resolve({ code, signal }));
  });
  const pid = child.pid ?? -1;
  return {
    pid,
    exited,
    stop: async (graceMs) => {
      if (pid <= 0) return;
      try {
        process.kill(pid, 'SIGTERM');
      } catch {
        return;
      }
      const timer = new Promise<'late'>((resolve) => setTimeout(resolve, graceMs, 'late').unref());
      if ((await Promise.race([exited, timer])) === 'late') await killTree(pid, 1_000);
      await endGroup(pid, 1_000);
    },
    release: () => child.unref(),
  };
}
