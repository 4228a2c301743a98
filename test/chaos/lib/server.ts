/**
 * One life of a `ribosome run` process under fault: started in its own process group (optionally
 * under a low `ulimit -n`), its stdout/stderr kept, its memory read from /proc, and a verdict on how
 * it ended. Every group started here is killed when the campaign process exits, whatever happened.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { EXIT } from '../../../src/clients/cli/run.ts';
import type { ServerEvent } from '../../../src/core/protocol/index.ts';
import { resolveServerSettings, type ServerSettings } from '../../../src/plan/config/server-config.ts';
import { bounded, exitText, firstListening } from '../../helpers/server-process.ts';

export { bounded, exitText };

export const ROOT = resolve(import.meta.dirname, '../../..');
export const BIN = join(ROOT, 'bin/ribosome');

export type Exit = { code: number | null; signal: NodeJS.Signals | null };

const liveGroups = new Set<number>();
process.once('exit', () => {
  for (const pid of liveGroups) killGroup(pid, 'SIGKILL');
});

export function killGroup(pid: number, signal: NodeJS.Signals = 'SIGKILL'): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // already gone
  }
}

export type Life = {
  child: ChildProcess;
  pid: number;
  url: string;
  port: number;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<Exit>;
  exit: Exit | undefined;
  /** VmRSS and VmHWM (peak) in KiB, while the process lives. */
  memory: () => { rssKiB: number; hwmKiB: number } | undefined;
  /** Kills the process group (agents run in groups of their own and are left, as a crash leaves them). */
  kill: (signal?: NodeJS.Signals) => void;
};

export type StartOptions = {
  env?: NodeJS.ProcessEnv;
  /** Run under `ulimit -n N` (bash execs the server, so the pid is the server's). */
  maxFiles?: number;
  timeoutMs?: number;
};

/** Starts `ribosome <args>` and resolves once it prints its listening line. */
export async function startRibosome(args: string[], options: StartOptions = {}): Promise<Life> {
  const [command, argv] = options.maxFiles
    ? ['bash', ['-c', `ulimit -n ${options.maxFiles} && exec "$0" "$@"`, BIN, ...args]]
    : [BIN, args];
  const child = spawn(command as string, argv as string[], {
    cwd: ROOT,
    env: { ...process.env, RIBOSOME_AGENT_MAX_RETRIES: '0', ...options.env },
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  if (child.pid === undefined) throw new Error(`could not start ${BIN}`);
  const pid = child.pid;
  liveGroups.add(pid);
  let out = '';
  let err = '';
  child.stdout?.on('data', (d: Buffer) => {
    out += d.toString();
    if (out.length > 200_000) out = out.slice(-100_000);
  });
  child.stderr?.on('data', (d: Buffer) => {
    err += d.toString();
    if (err.length > 400_000) err = err.slice(-200_000);
  });
  const life: Life = {
    child,
    pid,
    url: '',
    port: 0,
    stdout: () => out,
    stderr: () => err,
    exit: undefined,
    exited: new Promise<Exit>((r) => {
      child.once('exit', (code, signal) => {
        life.exit = { code, signal };
        liveGroups.delete(pid);
        r({ code, signal });
      });
    }),
    memory: () => memoryOf(pid),
    kill: (signal = 'SIGKILL') => killGroup(pid, signal),
  };
  const listened = await firstListening(child, life.stdout, life.exited, options.timeoutMs ?? 30_000);
  if ('timedOut' in listened) {
    life.kill();
    throw new Error(`the server did not print its listening line in time:\n${err.slice(-4000)}`);
  }
  if ('exited' in listened)
    throw new Error(
      `the server exited (${exitText(listened.exited)}) before listening:\n${err.slice(-4000)}`,
    );
  life.url = listened.url;
  life.port = Number(new URL(life.url).port);
  return life;
}

/**
 * The memory bound the campaign holds a server to under client floods (docs/operations.md#reliability): a
 * server idles at about 125 MiB; whatever clients send, it must stay under this.
 */
export const RSS_BOUND_MIB = 400;

/** Samples a process's memory; `peakKiB()` is the highest RSS it reached (VmHWM, which misses nothing). */
export function watchMemory(pid: number, everyMs = 100) {
  let peak = 0;
  let last = 0;
  const sample = () => {
    const m = memoryOf(pid);
    if (m) {
      last = m.rssKiB;
      peak = Math.max(peak, m.hwmKiB, m.rssKiB);
    }
  };
  sample();
  const timer = setInterval(sample, everyMs);
  return {
    peakKiB: () => {
      sample();
      return peak;
    },
    lastKiB: () => last,
    overBound: () => peak > RSS_BOUND_MIB * 1024,
    stop: () => clearInterval(timer),
  };
}

/** VmRSS and VmHWM of a live process, in KiB. */
export function memoryOf(pid: number): { rssKiB: number; hwmKiB: number } | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const field = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0);
    return { rssKiB: field('VmRSS'), hwmKiB: field('VmHWM') };
  } catch {
    return undefined;
  }
}

/** A JavaScript stack trace in `text` (the message line and the first frames), if it holds one. */
export function stackTraceIn(text: string): string | undefined {
  const lines = text.split('\n');
  const at = lines.findIndex((l) =>
    /^\s+at (?:async )?\S.*(?::\d+:\d+\)?|\(<anonymous>\)|\(index \d+\))$/.test(l),
  );
  if (at < 0) return undefined;
  return lines.slice(Math.max(0, at - 2), at + 4).join('\n');
}

/** The server's settings with nothing configured: the limits a scenario holds it to. */
export const DEFAULTS: ServerSettings = (() => {
  const resolved = resolveServerSettings({});
  if (!resolved.ok) throw new Error(resolved.message);
  return resolved.value;
})();

/** Exit codes `ribosome run` documents for a failure (docs/getting-started.md#exit-codes; src/clients/cli/run.ts EXIT). */
export const FAILURE_EXIT_CODES: ReadonlySet<number> = new Set(
  Object.values(EXIT as Record<string, number>).filter((c) => c !== 0),
);

/**
 * How a server that went down by itself (no kill of ours) ended: acceptable only with a documented
 * failure code, after a fatal `error` event reached a client, and without a stack trace.
 */
export function downVerdict(exit: Exit, received: readonly ServerEvent[], stderr: string): string[] {
  const problems: string[] = [];
  if (exit.signal) problems.push(`the server died of ${exit.signal}`);
  else if (exit.code === 0) problems.push('the server exited 0 in the middle of a fault');
  else if (!FAILURE_EXIT_CODES.has(exit.code ?? -1))
    problems.push(
      `the server exited with ${exit.code}, not a documented code (${[...FAILURE_EXIT_CODES].join(', ')})`,
    );
  if (!received.some((e) => e.type === 'error' && (e.data.severity === 'fatal' || e.data.fatal)))
    problems.push('the server went down without a fatal error event to its clients');
  const stack = stackTraceIn(stderr);
  if (stack) problems.push(`stack trace on stderr:\n${indent(stack)}`);
  return problems;
}

export function indent(text: string, by = '    '): string {
  return text
    .split('\n')
    .map((l) => by + l)
    .join('\n');
}

/** `ms` milliseconds: only for the moment a fault is injected at, never to wait for a condition. */
export const pause = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Waits until `check()` holds, polling; false when `timeoutMs` passes first. */
export async function until(check: () => boolean, timeoutMs: number, everyMs = 50): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, everyMs));
  }
  return true;
}
