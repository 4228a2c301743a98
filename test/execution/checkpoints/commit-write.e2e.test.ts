import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  commitBody,
  gitDate,
  looseObject,
  writeLooseObject,
} from '../../../src/execution/checkpoints/commit-object.ts';
import { fileFailureWords } from '../../../src/execution/checkpoints/errors.ts';
import { IDENTITY } from '../../../src/execution/checkpoints/git-env.ts';
import { CheckpointStore } from '../../../src/execution/checkpoints/index.ts';
import { formatCheckpointMessage } from '../../../src/execution/checkpoints/message.ts';
import { moveRef, packedRef, readRef } from '../../../src/execution/checkpoints/ref-file.ts';
import { checkpointOf, openStore, read, storeGit, treePaths, unwrap, workFiles, write } from './helpers.ts';

/**
 * The store writes its checkpoint commits and moves its branches itself (no commit-tree, no
 * update-ref): what git reads back must be what git would have written.
 */

const meta = {
  runId: 'r 1',
  codonId: 'c:1',
  codonName: 'Codon "één"\nsecond line',
  checkpointType: 'completed',
  status: 'completed',
  timestamp: '2026-01-02T03:04:05.000Z',
  initial: false,
} as const;

describe('commit objects', () => {
  it('are byte for byte what git commit-tree writes, with and without a parent', async () => {
    const { store } = await openStore();
    const tree = storeGit(store, ['mktree'], '').trim();
    const date = gitDate(new Date('2026-03-04T05:06:07Z'));
    const env = { GIT_AUTHOR_DATE: date, GIT_COMMITTER_DATE: date };
    const message = formatCheckpointMessage(meta);
    const byGit = (parent?: string) =>
      storeGitWithEnv(store.gitDir, ['commit-tree', tree, ...(parent ? ['-p', parent] : []), '-F', '-'], {
        env,
        input: message,
      }).trim();
    const root = byGit();
    expect(looseObject('commit', commitBody({ tree, parent: null, message, date })).sha).toBe(root);
    const child = looseObject('commit', commitBody({ tree, parent: root, message, date }));
    expect(child.sha).toBe(byGit(root));
    // Written by us, read by git.
    rmSync(join(store.gitDir, 'objects', child.sha.slice(0, 2), child.sha.slice(2)), { force: true });
    await writeLooseObject(store.gitDir, child, true);
    expect(storeGit(store, ['cat-file', '-p', child.sha])).toContain(`parent ${root}\n`);
    await writeLooseObject(store.gitDir, child, false); // already there: harmless
    expect(storeGit(store, ['fsck', '--strict', '--no-dangling'])).toBe('');
  });

  it('carry git signature dates with the local offset', () => {
    expect(gitDate(new Date(1_700_000_000_123))).toMatch(/^1700000000 [+-]\d{4}$/);
  });
});

describe('moving a branch', () => {
  it('passes git fsck and keeps the reflog after many checkpoints', async () => {
    const { store, agentRoot } = await openStore();
    unwrap(await store.startRun('r'));
    const shas: string[] = [];
    for (let i = 0; i < 3; i++) {
      write(agentRoot, `f${i}.txt`, `${i}`);
      shas.push(unwrap(await checkpointOf(store, 'r', `c${i}`)).sha);
    }
    expect(storeGit(store, ['rev-parse', 'refs/heads/run/r']).trim()).toBe(shas[2]);
    expect(storeGit(store, ['rev-parse', 'run/r@{1}']).trim()).toBe(shas[1]);
    const reflog = storeGit(store, ['reflog', 'show', '--format=%gs', 'run/r']).trim().split('\n');
    expect(reflog[0]).toBe('ribosome: completed c2');
    // The run's first line names its initial checkpoint, not a rig setup.
    expect(reflog.at(-1)).toBe('ribosome: initial checkpoint of run r');
    expect(storeGit(store, ['fsck', '--strict', '--no-dangling'])).toBe('');
  });

  it('goes on from where another writer moved the branch, never over it', async () => {
    const { store, agentRoot, dir } = await openStore();
    unwrap(await store.startRun('r'));
    const c1 = unwrap(await checkpointOf(store, 'r', 'c1'));
    // Someone else moves the run's branch back to the initial checkpoint.
    storeGit(store, ['update-ref', 'refs/heads/run/r', c1.parentSha ?? '']);
    write(agentRoot, 'a.txt', 'a');
    const c2 = unwrap(await checkpointOf(store, 'r', 'c2'));
    expect(c2.parentSha).toBe(c1.parentSha);
    expect(treePaths(store, c2.sha)).toEqual(['a.txt']);
    // Two stores on one repository, taking turns: one line of history, each on the other's last.
    const other = unwrap(await CheckpointStore.open({ executionDir: dir, workTree: agentRoot }));
    let last = c2.sha;
    for (let i = 0; i < 4; i++) {
      const next = unwrap(await checkpointOf(i % 2 ? store : other, 'r', `t${i}`));
      expect(next.parentSha).toBe(last);
      last = next.sha;
    }
    expect(storeGit(store, ['rev-parse', 'refs/heads/run/r']).trim()).toBe(last);
  });

  it('reads a branch packed by compact (git gc) and moves it on', async () => {
    const { store, agentRoot } = await openStore();
    unwrap(await store.startRun('r'));
    const c1 = unwrap(await checkpointOf(store, 'r', 'c1'));
    unwrap(await store.compact());
    expect(packedRef(readFileSync(join(store.gitDir, 'packed-refs'), 'utf8'), 'refs/heads/run/r')).toBe(
      c1.sha,
    );
    expect(await readRef(store.gitDir, 'refs/heads/run/r')).toBe(c1.sha);
    write(agentRoot, 'b.txt', 'b');
    const c2 = unwrap(await checkpointOf(store, 'r', 'c2'));
    expect(c2.parentSha).toBe(c1.sha);
    expect(storeGit(store, ['rev-parse', 'refs/heads/run/r']).trim()).toBe(c2.sha);
    // A new run's branch may not exist, packed or loose.
    const again = await store.startRun('r');
    expect(again.ok ? 'ok' : again.error.code).toBe('RUN_EXISTS');
    unwrap(await store.compact());
    expect(unwrap(await store.list('r')).map((c) => c.codonId)).toEqual(['', 'c1', 'c2']);
    expect(storeGit(store, ['fsck', '--strict', '--no-dangling'])).toBe('');
  });

  it('never moves a branch whose lock another git holds, and leaves the lock alone', async () => {
    const { store } = await openStore();
    const initial = unwrap(await store.startRun('r'));
    write(store.gitDir, 'refs/heads/run/r.lock', '');
    await expect(
      moveRef(store.gitDir, {
        ref: 'refs/heads/run/r',
        to: initial.sha,
        from: initial.sha,
        reflog: 'x',
        durable: false,
      }),
    ).rejects.toThrow(/File exists/);
    expect(read(store.gitDir, 'refs/heads/run/r.lock')).toBe('');
    // A lost compare-and-swap takes its own lock away and moves nothing.
    rmSync(join(store.gitDir, 'refs/heads/run/r.lock'));
    await expect(
      moveRef(store.gitDir, {
        ref: 'refs/heads/run/r',
        to: initial.sha,
        from: null,
        reflog: 'x',
        durable: false,
      }),
    ).rejects.toThrow(/reference already exists/);
    await expect(
      moveRef(store.gitDir, {
        ref: 'refs/heads/run/r',
        to: initial.sha,
        from: '1'.repeat(40),
        reflog: 'x',
        durable: false,
      }),
    ).rejects.toThrow(/but expected/);
    expect(workFiles(join(store.gitDir, 'refs'))).toEqual(['heads/run/r']);
    expect(storeGit(store, ['rev-parse', 'refs/heads/run/r']).trim()).toBe(initial.sha);
  });
});

describe('the tree of an unchanged agent root', () => {
  it('is the restored checkpoint after a restore, not the tree last written', async () => {
    const { store, agentRoot } = await openStore();
    write(agentRoot, 'a.txt', 'one');
    unwrap(await store.startRun('r'));
    const c1 = unwrap(await checkpointOf(store, 'r', 'c1'));
    write(agentRoot, 'a.txt', 'two');
    write(agentRoot, 'b.txt', 'b');
    unwrap(await checkpointOf(store, 'r', 'c2'));
    unwrap(await store.restore(c1.sha));
    // Nothing changed since the restore: the checkpoint holds c1's tree.
    const after = unwrap(await checkpointOf(store, 'r', 'c3'));
    expect(storeGit(store, ['rev-parse', `${after.sha}^{tree}`])).toBe(
      storeGit(store, ['rev-parse', `${c1.sha}^{tree}`]),
    );
    const next = unwrap(await store.startRun('r2', { fromSha: c1.sha }));
    expect(treePaths(store, next.sha)).toEqual(['a.txt']);
    expect(storeGit(store, ['show', `${next.sha}:a.txt`])).toBe('one');
  });
});

/** git on the store with the store's identity and `env` (commit dates), as the store once ran it. */
function storeGitWithEnv(
  gitDir: string,
  args: string[],
  options: { env: Record<string, string>; input: string },
): string {
  return execFileSync('git', [`--git-dir=${gitDir}`, ...args], {
    encoding: 'utf8',
    input: options.input,
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_CONFIG_GLOBAL: '/dev/null',
      HOME: tmpdir(),
      GIT_AUTHOR_NAME: IDENTITY.name,
      GIT_AUTHOR_EMAIL: IDENTITY.email,
      GIT_COMMITTER_NAME: IDENTITY.name,
      GIT_COMMITTER_EMAIL: IDENTITY.email,
      ...options.env,
    },
  });
}

describe('fileFailureWords', () => {
  it('says out of descriptors as a failed git start does, and keeps other errors as they are', () => {
    const errno = (code: string, message: string) =>
      Object.assign(new Error(message), { code, syscall: 'open', path: '/s/refs/heads/run/r' });
    expect(fileFailureWords(errno('EMFILE', 'EMFILE: too many open files, open ...'))).toBe(
      "EMFILE (too many open files in this process: its file descriptors are used up (ulimit -n)), open '/s/refs/heads/run/r'",
    );
    expect(fileFailureWords(errno('ENOSPC', 'ENOSPC: no space left on device, write'))).toBe(
      'ENOSPC: no space left on device, write',
    );
  });
});
