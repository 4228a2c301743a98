import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { DatabaseSync } from 'node:sqlite';

// Benchmarks use these helpers too, outside Vitest.
const vitestExpect = process.env.VITEST ? (await import('vitest')).expect : undefined;

export const ROOT = resolve(import.meta.dirname, '../..');
export const BIN = join(ROOT, 'bin/ribosome');

export type ServerProcess = {
  url: string;
  port: number;
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  /** Resolves with the exit code (or signal) when the process ends. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  kill(signal?: NodeJS.Signals): void;
};

/** Runs the real CLI in its own process group; every process started here is killed by `killAll`. */
const started = new Set<ChildProcess>();

/** `fdLimit` runs it under `ulimit -n N` (same pid: the shell execs it). */
export function runCli(
  args: string[],
  options: { env?: NodeJS.ProcessEnv; cwd?: string; fdLimit?: number } = {},
) {
  const [command, argv] =
    options.fdLimit === undefined
      ? [BIN, args]
      : ['bash', ['-c', `ulimit -n ${options.fdLimit} && exec "$0" "$@"`, BIN, ...args]];
  const child = spawn(command, argv, {
    cwd: options.cwd ?? ROOT,
    env: { ...process.env, ...options.env },
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  started.add(child);
  let out = '';
  let err = '';
  child.stdout?.on('data', (d: Buffer) => {
    out += d.toString();
  });
  child.stderr?.on('data', (d: Buffer) => {
    err += d.toString();
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('exit', (code, signal) => {
      started.delete(child);
      resolve({ code, signal });
    });
  });
  return {
    child,
    exited,
    stdout: () => out,
    stderr: () => err,
    kill: (signal: NodeJS.Signals = 'SIGTERM') => killGroup(child, signal),
  };
}

/** `ribosome ARGS` to its end, killed (its whole group) after `timeoutMs`: exit code and output. */
export async function cliToEnd(args: string[], env: NodeJS.ProcessEnv = {}, timeoutMs = 60_000) {
  const proc = runCli(args, { env });
  const timer = setTimeout(() => proc.kill('SIGKILL'), timeoutMs);
  const { code } = await proc.exited;
  clearTimeout(timer);
  return { code, stdout: proc.stdout(), stderr: proc.stderr() };
}

/** Starts `ribosome run --headless` and resolves once it prints its listening line. */
export async function startServer(
  plan: string,
  executionDir: string,
  extra: string[] = [],
  timeoutMs = 20_000,
  env: NodeJS.ProcessEnv = {},
  options: { fdLimit?: number } = {},
): Promise<ServerProcess> {
  const proc = runCli(['run', plan, '--headless', '--execution', executionDir, ...extra], {
    env,
    ...options,
  });
  const listened = await firstListening(proc.child, proc.stdout, proc.exited, timeoutMs);
  if ('timedOut' in listened) throw new Error(`server did not listen in time: ${proc.stderr()}`);
  if ('exited' in listened)
    throw new Error(`server exited with ${listened.exited.code} before listening: ${proc.stderr()}`);
  const { url } = listened;
  return { ...proc, url, port: Number(new URL(url).port) };
}

export function killGroup(child: ChildProcess, signal: NodeJS.Signals = 'SIGKILL'): void {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // Already gone.
  }
}

export function killAll(): void {
  for (const child of started) killGroup(child, 'SIGKILL');
  started.clear();
}

/**
 * A temporary directory, removed by `remove()`. The default name carries the test file's (as
 * `ribosome-test-crash-`), so that a process a test left behind says where it came from
 * (test/global-setup.ts).
 */
export function tempDir(prefix?: string): { path: string; remove(): void } {
  const path = mkdtempSync(join(tmpdir(), prefix ?? `ribosome-test-${testFileName()}`));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}

/** The running test file's name without `.e2e.test.ts` and the like, and a dash; '' outside a test. */
function testFileName(): string {
  const path = vitestExpect?.getState().testPath;
  if (!path) return '';
  // Short: Unix sockets made under it have a path limit (108 bytes).
  return `${basename(path)
    .replace(/(\.[a-z0-9]+)*\.test\.ts$/, '')
    .slice(0, 20)}-`;
}

export const EMPTY_PLAN = join(ROOT, 'examples/empty/plan.yaml');

export type ProcessExit = { code: number | null; signal: NodeJS.Signals | null };
export type Listening = { url: string } | { timedOut: true } | { exited: ProcessExit };

/**
 * What a starting `ribosome run --headless` does first: print its listening line (`url`), exit, or
 * neither within `timeoutMs`. `stdout` is everything it printed so far.
 */
export function firstListening(
  child: ChildProcess,
  stdout: () => string,
  exited: Promise<ProcessExit>,
  timeoutMs: number,
): Promise<Listening> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve({ timedOut: true }), timeoutMs);
    const check = () => {
      const match = /^listening (ws:\/\/\S+)$/m.exec(stdout());
      if (!match?.[1]) return;
      clearTimeout(timer);
      child.stdout?.off('data', check);
      resolve({ url: match[1] });
    };
    child.stdout?.on('data', check);
    void exited.then((exit) => {
      clearTimeout(timer);
      resolve({ exited: exit });
    });
  });
}

/** `exit code 1` or `signal SIGKILL`: how a process ended, for messages. */
export function exitText(exit: ProcessExit): string {
  return exit.signal ? `signal ${exit.signal}` : `exit code ${exit.code}`;
}

/** A promise's value, or `undefined` once `ms` have passed. */
export async function bounded<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<undefined>((r) => {
    timer = setTimeout(() => r(undefined), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Runs `ribosome run --headless --exit-when-done` with the scripted provider to its end (killed after
 * `timeoutMs`); resolves with its exit code and output.
 */
export async function runToEnd(
  plan: string,
  exec: string,
  script: string,
  extra: string[] = [],
  options: { env?: NodeJS.ProcessEnv; cwd?: string; timeoutMs?: number } = {},
) {
  const proc = runCli(
    [
      'run',
      plan,
      '--headless',
      '--exit-when-done',
      '--execution',
      exec,
      '--scripted-provider',
      script,
      ...extra,
    ],
    { ...(options.env ? { env: options.env } : {}), ...(options.cwd ? { cwd: options.cwd } : {}) },
  );
  const timer = setTimeout(() => proc.kill('SIGKILL'), options.timeoutMs ?? 60_000);
  const { code } = await proc.exited;
  clearTimeout(timer);
  return { code, stdout: proc.stdout(), stderr: proc.stderr() };
}

/** Every event of an execution directory's journal, read from its database (no server needed). */
export function journalRows(
  exec: string,
): Array<{ type: string; runId: string; data: Record<string, unknown>; json: string }> {
  const db = new DatabaseSync(join(exec, '.ribosome', 'ribosome.db'), { readOnly: true });
  try {
    const rows = db.prepare('SELECT run_id, json FROM events ORDER BY seq').all() as Array<{
      run_id: string;
      json: string;
    }>;
    return rows.map((r) => {
      const event = JSON.parse(r.json) as { type: string; data: Record<string, unknown> };
      return { type: event.type, runId: r.run_id, data: event.data, json: r.json };
    });
  } finally {
    db.close();
  }
}
