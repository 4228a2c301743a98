import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

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
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`server did not listen in time: ${proc.stderr()}`)),
      timeoutMs,
    );
    const check = () => {
      const match = /^listening (ws:\/\/\S+)$/m.exec(proc.stdout());
      if (match?.[1]) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    };
    proc.child.stdout?.on('data', check);
    proc.exited.then(({ code }) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code} before listening: ${proc.stderr()}`));
    });
  });
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

export function tempDir(prefix = 'ribosome-test-'): { path: string; remove(): void } {
  const path = mkdtempSync(join(tmpdir(), prefix));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}

export const EMPTY_PLAN = join(ROOT, 'examples/empty/plan.yaml');
