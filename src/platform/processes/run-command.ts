import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';
import { withoutServerSecrets } from '../credentials/credentials.ts';
import { endMarked, killTree } from './process-tree.ts';
import { spawnSafely } from './spawn-safely.ts';

export type CommandOptions = {
  /** Run with `bash -c`. */
  command: string;
  cwd: string;
  timeoutMs: number;
  /**
   * The environment variable that marks the command's processes (its value is unique to this run),
   * so those that left its tree (`setsid server &`) are ended with it, and a server restarted after a
   * crash can find them.
   */
  markName: string;
  /**
   * Variables over the server's environment (a codon's `env`); the mark is set last. The server's
   * is passed without its secrets (withoutServerSecrets): the access token, the provider keys and
   * `keyVars`, the plan's key variables.
   */
  env?: Record<string, string>;
  keyVars?: readonly string[];
  /** Aborting ends the command (its whole process tree). */
  signal?: AbortSignal;
  /** The command's process as it starts and ends, with the mark its processes carry. */
  onProcess?: (pid: number, running: boolean, mark: string) => void;
  /** Output as it arrives, in the order it arrives. */
  onData?: (stream: 'stdout' | 'stderr', text: string) => void;
  /**
   * Runs the shell through something else (the codon's sandbox: `bwrap ... bash -c ...`): the command
   * line and environment it is given, as they are to be started.
   */
  wrap?: CommandWrap;
};

/** Turns a command line and its environment into the ones to start (docs/agents.md#the-sandbox). */
export type CommandWrap = (line: {
  command: string;
  args: string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
}) => {
  command: string;
  args: string[];
  env: NodeJS.ProcessEnv;
  /** A descriptor to hand the process the read end of a pipe at, which closes with this process (sandboxInit). */
  lifeline?: number;
};

export type CommandResult = {
  /** The shell's exit code; null when it was killed by a signal or never started. */
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  /** Ended because the signal was aborted. */
  aborted: boolean;
  /** Why it could not be started (out of file descriptors, a missing cwd). */
  startFailure?: string;
  /** Processes it left running once the shell had exited, ended with it. */
  leftBehind: number;
};

/**
 * Runs a shell command for a codon (a rig setup step, a verification gate): bounded by its timeout,
 * stoppable by a signal, and over only once its output is read to the end and every process it
 * started is gone (whole trees, and whatever carries its mark). Never throws.
 */
export function runCommand(options: CommandOptions): Promise<CommandResult> {
  return new Promise((resolve) => {
    const mark = randomUUID();
    const plain = {
      command: 'bash',
      args: ['-c', options.command],
      cwd: options.cwd,
      env: { ...withoutServerSecrets(process.env, options.keyVars), ...options.env } as NodeJS.ProcessEnv,
    };
    const line: ReturnType<CommandWrap> = options.wrap ? options.wrap(plain) : plain;
    const started = spawnSafely(line.command, line.args, {
      cwd: options.cwd,
      // Set last: a codon's `env` cannot unmark the command.
      env: { ...line.env, [options.markName]: mark },
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe', ...lifelineStdio(line.lifeline)],
    });
    if (!started.ok) {
      void started.why.then((why) =>
        resolve({
          exitCode: null,
          signal: null,
          timedOut: false,
          aborted: false,
          startFailure: why,
          leftBehind: 0,
        }),
      );
      return;
    }
    const { child } = started;
    keepLifeline(child, line.lifeline);
    const pid = child.pid ?? -1;
    let timedOut = false;
    let aborted = false;
    // Every process of the command carries its mark in the environment, even one that detached into
    // a session of its own and left the parent-child tree.
    const endLeftBehind = () => endMarked(options.markName, mark, 1_000);
    const stop = () => void killTree(pid, 1_000).then(endLeftBehind);
    const onAbort = () => {
      aborted = true;
      stop();
    };
    options.onProcess?.(pid, true, mark);
    // Decoded as UTF-8 across chunk boundaries (a character split between two reads stays whole).
    child.stdout?.setEncoding('utf8').on('data', (text: string) => options.onData?.('stdout', text));
    child.stderr?.setEncoding('utf8').on('data', (text: string) => options.onData?.('stderr', text));
    const timer = setTimeout(() => {
      timedOut = true;
      stop();
    }, options.timeoutMs);
    options.signal?.addEventListener('abort', onAbort, { once: true });
    if (options.signal?.aborted) onAbort();
    // The shell is done: a process it left running would hold the pipes open (and the command) for
    // good. The command's processes end with it.
    let leftBehind: Promise<number> = Promise.resolve(0);
    child.once('exit', () => {
      leftBehind = new Promise((done) => setTimeout(() => void endLeftBehind().then(done), 50));
    });
    child.once('close', async (code, signal) => {
      const ended = await leftBehind;
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      options.onProcess?.(pid, false, mark);
      resolve({ exitCode: code, signal, timedOut, aborted, leftBehind: ended });
    });
  });
}

/** The stdio entries after stderr that put a pipe at descriptor `lifeline` (3 or more). */
export function lifelineStdio(lifeline: number | undefined): Array<'pipe' | 'ignore'> {
  if (lifeline === undefined || lifeline < 3) return [];
  return [...Array<'ignore'>(lifeline - 3).fill('ignore'), 'pipe'];
}

/** Reads the lifeline (nothing is ever written on it) so that it closes with the process's tree. */
export function keepLifeline(child: ChildProcess, lifeline: number | undefined): void {
  if (lifeline === undefined) return;
  const end = child.stdio[lifeline] as Readable | null | undefined;
  end?.on('error', () => {});
  end?.resume();
}
