/**
 * Shared by the checkpoint benchmarks: a deterministic synthetic agent root, a plain git beside the
 * store, timers that also count CPU (this process and the children it waited for: git), and a git
 * wrapper that records git's own trace2 timings, to count and time the gits a checkpoint runs.
 */
import { execFile } from 'node:child_process';
import {
  chmodSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';

const exec = promisify(execFile);

export type Comparison = { ribosomeMs: number; plainMs: number; ratio: number; samples: number };

/** Deterministic files: mostly small text (node_modules, src), some large incompressible assets. */
export function generateTree(roots: string[], files: number, bytes: number) {
  const random = xorshift(0x5eed);
  const words = [
    'const',
    'function',
    'return',
    'export',
    'import',
    'value',
    'index',
    'module',
    '=>',
    '{',
    '}',
    ';',
  ];
  const text = Buffer.from(
    Array.from({ length: 400_000 }, () => words[Math.floor(random() * words.length)]).join(' '),
  );
  const noise = Buffer.alloc(8 * 1024 * 1024);
  for (let i = 0; i < noise.length; i += 4) noise.writeUInt32LE(Math.floor(random() * 2 ** 32), i);

  const largeCount = Math.max(1, Math.round(files / 200));
  const smallCount = files - largeCount;
  // Half the bytes in a few large files, half spread over the small ones.
  const smallAverage = bytes / 2 / smallCount;
  const largeAverage = bytes / 2 / largeCount;
  const nodeModulesFiles = Math.round(smallCount * 0.6);
  const smallFiles: string[] = [];
  let total = 0;
  const put = (path: string, content: Buffer) => {
    for (const root of roots) {
      mkdirSync(dirname(join(root, path)), { recursive: true });
      writeFileSync(join(root, path), content);
    }
    total += content.length;
  };
  for (let i = 0; i < smallCount; i++) {
    const path =
      i < nodeModulesFiles
        ? `node_modules/pkg-${Math.floor(i / 40)}/${i % 3 === 0 ? 'dist' : 'lib'}/file-${i}.js`
        : `src/module-${Math.floor(i / 30)}/file-${i}.ts`;
    const size = Math.max(64, Math.round(smallAverage * (0.2 + random() * 1.6)));
    const start = Math.floor(random() * (text.length - size));
    put(path, Buffer.concat([Buffer.from(`// ${path}\n`), text.subarray(start, start + size)]));
    if (!path.startsWith('node_modules')) smallFiles.push(path);
  }
  for (let i = 0; i < largeCount; i++) {
    const size = Math.min(noise.length - 1, Math.round(largeAverage * (0.5 + random())));
    const start = Math.floor(random() * (noise.length - size));
    put(`assets/blob-${i}.bin`, Buffer.concat([Buffer.from(`${i}\n`), noise.subarray(start, start + size)]));
  }
  return { files, bytes: total, nodeModulesFiles, smallFiles };
}

export function changeFile(root: string, path: string, step: number): void {
  writeFileSync(join(root, path), `// changed at step ${step}\n`, { flag: 'a' });
}

/** Modify two files, add one, delete one: a typical small codon. */
export function smallChanges(root: string, smallFiles: string[], step: number): void {
  changeFile(root, smallFiles[(step * 31) % smallFiles.length]!, step);
  changeFile(root, smallFiles[(step * 37 + 11) % smallFiles.length]!, step);
  writeFileSync(join(root, `src/added-${step}.ts`), `export const step = ${step};\n`);
  const victim = join(root, `src/added-${step - 1}.ts`);
  try {
    unlinkSync(victim);
  } catch {}
}

export function plainGit(cwd: string, gitDir?: string) {
  const env = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: cwd,
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_AUTHOR_NAME: 'bench',
    GIT_AUTHOR_EMAIL: 'bench@example.com',
    GIT_COMMITTER_NAME: 'bench',
    GIT_COMMITTER_EMAIL: 'bench@example.com',
    // As in the store: a background auto-gc would race the timings and the disk measurement.
    GIT_CONFIG_COUNT: '1',
    GIT_CONFIG_KEY_0: 'gc.auto',
    GIT_CONFIG_VALUE_0: '0',
    // A repository beside the tree (the same tree as the store's), or the tree's own .git.
    ...(gitDir ? { GIT_DIR: gitDir, GIT_WORK_TREE: cwd } : {}),
  };
  return async (...args: string[]) =>
    (await exec('git', args, { cwd, env, maxBuffer: 64 * 1024 * 1024, encoding: 'utf8' })).stdout;
}

/** Bytes allocated on disk (blocks, not apparent sizes: small loose objects take a block each). */
export function diskUsage(dir: string): number {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile())
      total += (statSync(join(entry.parentPath, entry.name), { throwIfNoEntry: false })?.blocks ?? 0) * 512;
  }
  return total;
}

export async function time(task: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await task();
  return performance.now() - start;
}

export function must<T>(
  result: { ok: true; value: T } | { ok: false; error: { code: string; message: string } },
): T {
  if (!result.ok) throw new Error(`${result.error.code}: ${result.error.message}`);
  return result.value;
}

export function compare(ours: number[], plain: number[]): Comparison {
  const ribosomeMs = median(ours);
  const plainMs = median(plain);
  return { ribosomeMs, plainMs, ratio: round(ribosomeMs / plainMs), samples: ours.length };
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  const value = sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
  return round(value);
}

export function round(value: number): number {
  return Math.round(value * 100) / 100;
}

function xorshift(seed: number): () => number {
  let state = seed >>> 0 || 1;
  return () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 2 ** 32;
  };
}

/** CPU milliseconds used so far by this process and the children it has waited for (Linux). */
export function cpuMs(): number {
  try {
    // Fields after "(comm) ": state is 3; utime 14, stime 15, cutime 16, cstime 17, in clock ticks.
    const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1]!.split(' ');
    const ticks = [11, 12, 13, 14].reduce((sum, i) => sum + Number(fields[i]), 0);
    return ticks * 10;
  } catch {
    return Number.NaN;
  }
}

/** Wall and CPU time of a task. */
export async function timed(task: () => Promise<unknown>): Promise<{ ms: number; cpuMs: number }> {
  const cpu = cpuMs();
  const start = performance.now();
  await task();
  return { ms: performance.now() - start, cpuMs: cpuMs() - cpu };
}

/**
 * A git wrapper (for the store's gitBinary option) writing trace2 events to `log`; `read` returns each
 * git run since the last read: its command and its own wall time.
 */
export function tracingGit(dir: string): { binary: string; read: () => Array<{ name: string; ms: number }> } {
  const binary = join(dir, 'git-trace2');
  const log = join(dir, 'git-trace2.jsonl');
  writeFileSync(binary, `#!/bin/sh\nGIT_TRACE2_EVENT='${log}' exec git "$@"\n`);
  chmodSync(binary, 0o755);
  return {
    binary,
    read: () => {
      let text = '';
      try {
        text = readFileSync(log, 'utf8');
        unlinkSync(log);
      } catch {}
      const runs = new Map<string, { name: string; ms: number }>();
      for (const line of text.split('\n')) {
        if (!line) continue;
        const event = JSON.parse(line) as { event: string; sid: string; name?: string; t_abs?: number };
        // Only top-level gits: a sid with a '/' is a git started by another git.
        if (event.sid.includes('/')) continue;
        const run = runs.get(event.sid) ?? { name: '?', ms: 0 };
        if (event.event === 'cmd_name' && event.name) run.name = event.name;
        if (event.event === 'exit' && event.t_abs !== undefined) run.ms = Math.round(event.t_abs * 1000);
        runs.set(event.sid, run);
      }
      return [...runs.values()];
    },
  };
}
