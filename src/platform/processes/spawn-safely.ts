/**
 * Starting a child process so that a failure to start it is a value, never a crash. Node's `spawn`
 * reports most failures (ENOENT, EACCES, EAGAIN, EMFILE, ENFILE) as an `error` event on the next
 * tick, and on EMFILE/ENFILE it does not even create `stdout`/`stderr`/`stdin`: code that touched
 * them, or listened for `error` too late, died of an unhandled `error` event. Others it throws.
 */
import { type ChildProcess, type SpawnOptions, spawn } from 'node:child_process';

export type Spawned =
  /** Started: `child.pid` is set, and the stdio asked for as 'pipe' exists. */
  | { ok: true; child: ChildProcess }
  /** Not started: resolves with why, in words a person can act on (see `startFailure`). */
  | { ok: false; why: Promise<string> };

/**
 * Spawns `command` with an `error` listener attached before anything else can happen. On success
 * the listener stays, so a later error (a failed kill) is never fatal either; add your own to see it.
 */
export function spawnSafely(command: string, args: readonly string[], options: SpawnOptions): Spawned {
  let child: ChildProcess;
  const before = new Set(activeHandles());
  try {
    child = spawn(command, args, options);
  } catch (error) {
    return { ok: false, why: Promise.resolve(startFailure(command, error)) };
  }
  const failed = new Promise<string>((resolve) =>
    child.on('error', (error) => resolve(startFailure(command, error))),
  );
  // No pid: the spawn failed; the reason arrives as the `error` event, on the next tick.
  if (child.pid === undefined) {
    closeLeftPipes(before);
    return { ok: false, why: failed };
  }
  return { ok: true, child };
}

type Handle = { constructor?: { name?: string }; close?: () => void };

/** Node's list of the handles that keep the process alive (undocumented; empty where it is missing). */
function activeHandles(): Handle[] {
  const list = (process as unknown as { _getActiveHandles?: () => Handle[] })._getActiveHandles;
  return typeof list === 'function' ? list.call(process) : [];
}

/**
 * On EMFILE/ENFILE Node gives up before it wraps the stdio pipes it made for the child, and never
 * closes them: each failed spawn leaked up to three descriptors, and the pipes kept the process
 * from exiting after a clean stop. They are the Pipe handles that appeared during the failed spawn
 * (nothing else runs in between); closing them gives the descriptors back.
 */
function closeLeftPipes(before: ReadonlySet<Handle>): void {
  for (const handle of activeHandles()) {
    if (before.has(handle) || handle.constructor?.name !== 'Pipe') continue;
    try {
      handle.close?.();
    } catch {
      // Already closing: nothing held.
    }
  }
}

/** What an errno means, for a person (spawn failures; the checkpoint store's own file writes). */
export const ERRNO_HINTS: Record<string, string> = {
  EMFILE: 'too many open files in this process: its file descriptors are used up (ulimit -n)',
  ENFILE: 'too many open files on this system',
  EAGAIN: 'the system refused a new process (process limit reached?)',
  ENOMEM: 'not enough memory to start a process',
  ENOENT: 'the program or the working directory does not exist',
  EACCES: 'permission denied',
};

/** `spawn git EMFILE (too many open files in this process: ...)`: the error with what its code means. */
export function startFailure(command: string, error: unknown): string {
  const err = error as NodeJS.ErrnoException;
  const message = err?.message ?? String(error);
  const hint = err?.code ? ERRNO_HINTS[err.code] : undefined;
  const named = message.includes(command) ? message : `${command}: ${message}`;
  return hint ? `${named} (${hint})` : named;
}
