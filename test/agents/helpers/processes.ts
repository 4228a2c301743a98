/**
 * Child processes for e2e tests: spawned in a group of their own, output collected, and on cleanup
 * the whole tree killed, descendants found first (a tool may have started a session of its own,
 * out of the group's reach).
 */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { z } from 'zod';
import { descendants } from '../../../src/platform/processes/process-tree.ts';

export type Finished = { code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string };

export type Spawned = {
  child: ChildProcessWithoutNullStreams;
  /** Resolves when the process exits and its output is read. */
  finished: Promise<Finished>;
  /** SIGKILL the process and every descendant; safe to call twice. */
  kill(): void;
};

const live = new Set<Spawned>();

export function spawnTracked(
  command: string,
  args: string[],
  options: { cwd: string; env: NodeJS.ProcessEnv; input?: string },
): Spawned {
  const child = spawn(command, args, { cwd: options.cwd, env: options.env, detached: true, stdio: 'pipe' });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  child.stdin.on('error', () => {}); // the child may exit before reading its input
  child.stdin.end(options.input ?? '');
  const finished = new Promise<Finished>((resolve) => {
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
  const spawned: Spawned = {
    child,
    finished,
    kill() {
      if (child.pid !== undefined) killTree(child.pid);
    },
  };
  live.add(spawned);
  finished.then(() => live.delete(spawned));
  return spawned;
}

/** Kills every process still running that spawnTracked started (for afterEach/afterAll). */
export function killAllTracked(): void {
  for (const spawned of live) spawned.kill();
}

export function killTree(pid: number): void {
  const tree = descendants(pid); // before any signal: orphans would be reparented away
  for (const target of [-pid, pid, ...tree]) {
    try {
      process.kill(target, 'SIGKILL');
    } catch {
      // already gone
    }
  }
}

const LineSchema = z.looseObject({ type: z.string(), subtype: z.string().optional() });
export type Line = z.infer<typeof LineSchema>;

/** Parses stream-json output, one object per non-empty line. */
export function jsonLines(text: string): Line[] {
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => LineSchema.parse(JSON.parse(line)));
}
