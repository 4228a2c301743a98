import { spawn } from 'node:child_process';
import { closeSync, fstatSync, mkdirSync, openSync, readSync } from 'node:fs';
import { dirname } from 'node:path';
import { endGroup, isAlive, killTree } from '../../../platform/processes/process-tree.ts';
import { CLI_MAIN } from './job-args.ts';
import type { JobExit } from './verdict.ts';

/** A job's `ribosome run`, started by this batch process. */
export type JobProcess = {
  pid: number;
  exited: Promise<JobExit>;
  /** SIGTERM (the run stops its agents and keeps what is done, to be resumed); its tree killed after the grace. */
  stop(graceMs: number): Promise<void>;
};

/**
 * Starts `ribosome run ARGS` in a process group of its own (a Ctrl-C at the batch's terminal is the
 * batch's to forward; a kill -9 of the batch leaves the job running to its end), its output appended
 * to `logFile`.
 */
export function startJobProcess(
  args: readonly string[],
  logFile: string,
  env: NodeJS.ProcessEnv,
): JobProcess {
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
  const exited = new Promise<JobExit>((resolve) => {
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
  };
}

/** Waits until a process this batch did not start (a job adopted from an earlier batch process) is gone. */
export async function waitForExit(pid: number, pollMs = 250): Promise<void> {
  while (isAlive(pid)) await new Promise((resolve) => setTimeout(resolve, pollMs));
}

/** The last non-empty line of a job's log (its run's summary or refusal), at most 300 characters. */
export function lastLogLine(logFile: string): string | undefined {
  let fd: number;
  try {
    fd = openSync(logFile, 'r');
  } catch {
    return undefined;
  }
  try {
    const size = fstatSync(fd).size;
    const length = Math.min(size, 8192);
    const buffer = Buffer.alloc(length);
    readSync(fd, buffer, 0, length, size - length);
    const lines = buffer
      .toString('utf8')
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l !== '');
    // The run's own announcements say nothing of why it ended.
    const last = lines.filter((l) => !/^(listening|dashboard) /.test(l)).at(-1);
    return last === undefined ? undefined : last.slice(0, 300);
  } finally {
    closeSync(fd);
  }
}
