import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, expect } from 'vitest';
import type { CheckpointStoreOptions, StoreResult } from '../../../src/execution/checkpoints/index.ts';
import { CheckpointStore } from '../../../src/execution/checkpoints/index.ts';

const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A fresh execution directory with an empty agentRoot, removed after the test. */
export function tempExecution(): { dir: string; agentRoot: string } {
  const dir = mkdtempSync(join(tmpdir(), 'ribosome-checkpoints-'));
  made.push(dir);
  const agentRoot = join(dir, 'agentRoot');
  mkdirSync(agentRoot);
  return { dir, agentRoot };
}

export function unwrap<T>(result: StoreResult<T>): T {
  if (!result.ok) expect.fail(`${result.error.code}: ${result.error.message}`);
  return result.value;
}

export async function openStore(
  options: Partial<CheckpointStoreOptions> = {},
): Promise<{ store: CheckpointStore; dir: string; agentRoot: string }> {
  const { dir, agentRoot } = tempExecution();
  const store = unwrap(await CheckpointStore.open({ executionDir: dir, workTree: agentRoot, ...options }));
  return { store, dir, agentRoot };
}

/** A checkpoint of codon `codonId` with sensible defaults. */
export function checkpointOf(
  store: CheckpointStore,
  runId: string,
  codonId: string,
  checkpointType: 'rig-setup' | 'completed' | 'error' | 'skipped' = 'completed',
) {
  const status = {
    'rig-setup': 'preparing',
    completed: 'completed',
    error: 'failed',
    skipped: 'skipped',
  } as const;
  return store.create({
    runId,
    codonId,
    codonName: `Codon ${codonId}`,
    checkpointType,
    status: status[checkpointType],
  });
}

export function write(root: string, path: string, content: string | Buffer): void {
  mkdirSync(dirname(join(root, path)), { recursive: true });
  writeFileSync(join(root, path), content);
}

export function read(root: string, path: string): string {
  return readFileSync(join(root, path), 'utf8');
}

/** Runs a bash command, as an agent's Bash tool would. */
export function bash(command: string, cwd: string): string {
  return execFileSync('bash', ['-c', command], { cwd, encoding: 'utf8' });
}

/** A git for the user's own repositories, cut off from this machine's config. */
export function userGit(cwd: string, args: string[]): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8', env: cleanGitEnv() });
}

/** Reads the shadow repository directly. */
export function storeGit(store: CheckpointStore, args: string[], input?: string): string {
  return execFileSync('git', [`--git-dir=${store.gitDir}`, ...args], {
    encoding: 'utf8',
    env: cleanGitEnv(),
    ...(input === undefined ? {} : { input }),
  });
}

export function treePaths(store: CheckpointStore, sha: string): string[] {
  return storeGit(store, ['ls-tree', '-r', '-z', '--name-only', sha]).split('\0').filter(Boolean).sort();
}

export function showFile(store: CheckpointStore, sha: string, path: string): string {
  return storeGit(store, ['show', `${sha}:${path}`]);
}

/** Every file under `dir` with its content hash and mtime: equal snapshots mean nothing was written. */
export function snapshotTree(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (rel: string) => {
    for (const entry of readdirSync(join(dir, rel), { withFileTypes: true })) {
      const path = rel ? `${rel}/${entry.name}` : entry.name;
      if (entry.isDirectory()) walk(path);
      else {
        const full = join(dir, path);
        const hash = createHash('sha256').update(readFileSync(full)).digest('hex');
        out[path] = `${hash} ${statSync(full).mtimeMs}`;
      }
    }
  };
  walk('');
  return out;
}

/** Files of the work tree (without any .git), sorted. */
export function workFiles(root: string): string[] {
  return Object.keys(snapshotTree(root))
    .filter((p) => !p.split('/').includes('.git'))
    .sort();
}

function cleanGitEnv(): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_AUTHOR_NAME: 'User',
    GIT_AUTHOR_EMAIL: 'user@example.com',
    GIT_COMMITTER_NAME: 'User',
    GIT_COMMITTER_EMAIL: 'user@example.com',
    HOME: tmpdir(),
  };
}
