import { existsSync, lstatSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { bash, checkpointOf, openStore, read, storeGit, treePaths, unwrap } from './helpers.ts';

/** `mode type path` of every entry of a checkpoint's tree, e.g. `120000 blob a`. */
function treeEntries(store: Parameters<typeof storeGit>[0], sha: string): string[] {
  return storeGit(store, ['ls-tree', '-r', sha])
    .trim()
    .split('\n')
    .map((line) => {
      const [meta, path] = line.split('\t');
      const [mode, type] = meta!.split(' ');
      return `${mode} ${type} ${path}`;
    });
}

/** Every entry under `root` (not .ribosome), links read and never followed: `path -> target`, `path: content`. */
function workFiles(root: string, rel = ''): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(join(root, rel), { withFileTypes: true })) {
    const path = rel ? `${rel}/${entry.name}` : entry.name;
    if (entry.isSymbolicLink()) out.push(`${path} -> ${readlinkSync(join(root, path))}`);
    else if (entry.isDirectory()) out.push(`${path}/`, ...workFiles(root, path));
    else out.push(`${path}: ${readFileSync(join(root, path), 'utf8')}`);
  }
  return out.sort();
}

function kindOf(root: string, path: string): 'link' | 'dir' | 'file' | 'none' {
  const stats = (() => {
    try {
      return lstatSync(join(root, path));
    } catch {
      return null;
    }
  })();
  if (!stats) return 'none';
  return stats.isSymbolicLink() ? 'link' : stats.isDirectory() ? 'dir' : 'file';
}

const outside: string[] = [];
afterEach(() => {
  for (const dir of outside.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('CheckpointStore: a path that changes kind', () => {
  it.each([
    {
      kind: 'a directory replaced by a symlink (the trial: mv into b, ln -s b a)',
      before: 'mkdir -p a && echo 1 > a/f.txt',
      after: 'mkdir -p b && mv a/f.txt b/ && rm -rf a && ln -s b a',
      beforeTree: ['100644 blob a/f.txt'],
      afterTree: ['120000 blob a', '100644 blob b/f.txt'],
    },
    {
      kind: 'a deeper directory replaced by a symlink to a directory with the same files',
      before: 'mkdir -p a/sub b && echo 1 > a/sub/f.txt && echo 2 > a/sub/g.txt && echo 3 > b/f.txt',
      after: 'rm -rf a/sub && ln -s ../b a/sub',
      beforeTree: ['100644 blob a/sub/f.txt', '100644 blob a/sub/g.txt', '100644 blob b/f.txt'],
      afterTree: ['120000 blob a/sub', '100644 blob b/f.txt'],
    },
    {
      kind: 'a symlink replaced by a directory',
      before: 'mkdir b && echo 1 > b/f.txt && ln -s b a',
      after: 'rm a && mkdir a && echo 2 > a/g.txt',
      beforeTree: ['120000 blob a', '100644 blob b/f.txt'],
      afterTree: ['100644 blob a/g.txt', '100644 blob b/f.txt'],
    },
    {
      kind: 'a file replaced by a directory',
      before: 'echo 1 > a',
      after: 'rm a && mkdir a && echo 2 > a/g.txt',
      beforeTree: ['100644 blob a'],
      afterTree: ['100644 blob a/g.txt'],
    },
    {
      kind: 'a directory replaced by a file',
      before: 'mkdir -p a/sub && echo 1 > a/sub/f.txt && echo 2 > a/g.txt',
      after: 'rm -r a && echo 3 > a',
      beforeTree: ['100644 blob a/g.txt', '100644 blob a/sub/f.txt'],
      afterTree: ['100644 blob a'],
    },
    {
      kind: 'a file replaced by a symlink and a symlink by a file',
      before: 'echo 1 > a && ln -s a l',
      after: 'rm a l && ln -s l a && echo 2 > l',
      beforeTree: ['100644 blob a', '120000 blob l'],
      afterTree: ['120000 blob a', '100644 blob l'],
    },
  ])('records $kind, and restores both ways', async ({ before, after, beforeTree, afterTree }) => {
    const { store, agentRoot } = await openStore();
    unwrap(await store.startRun('r'));
    bash(before, agentRoot);
    const one = unwrap(await checkpointOf(store, 'r', 'one'));
    const filesOne = workFiles(agentRoot);
    bash(after, agentRoot);
    const two = unwrap(await checkpointOf(store, 'r', 'two'));
    const filesTwo = workFiles(agentRoot);
    expect(treeEntries(store, one.sha)).toEqual(beforeTree);
    expect(treeEntries(store, two.sha)).toEqual(afterTree);
    // A redo of the same step checkpoints again without trouble.
    expect(treeEntries(store, unwrap(await checkpointOf(store, 'r', 'two')).sha)).toEqual(afterTree);

    unwrap(await store.restore(one.sha));
    expect(workFiles(agentRoot)).toEqual(filesOne);
    expect(treeEntries(store, unwrap(await checkpointOf(store, 'r', 'again')).sha)).toEqual(beforeTree);
    unwrap(await store.restore(two.sha));
    expect(workFiles(agentRoot)).toEqual(filesTwo);
    expect(treeEntries(store, unwrap(await checkpointOf(store, 'r', 'again')).sha)).toEqual(afterTree);
  });

  it('restores the trial case exactly: directory a with f.txt, then the link a -> b', async () => {
    const { store, agentRoot } = await openStore();
    unwrap(await store.startRun('r'));
    bash('mkdir -p a && echo 1 > a/f.txt', agentRoot);
    const one = unwrap(await checkpointOf(store, 'r', 'one'));
    bash('mkdir -p b && mv a/f.txt b/ && rm -rf a && ln -s b a', agentRoot);
    const two = unwrap(await checkpointOf(store, 'r', 'two'));

    unwrap(await store.restore(one.sha));
    expect(kindOf(agentRoot, 'a')).toBe('dir');
    expect(read(agentRoot, 'a/f.txt')).toBe('1\n');
    expect(kindOf(agentRoot, 'b')).toBe('none');

    unwrap(await store.restore(two.sha));
    expect(kindOf(agentRoot, 'a')).toBe('link');
    expect(readlinkSync(join(agentRoot, 'a'))).toBe('b');
    expect(read(agentRoot, 'b/f.txt')).toBe('1\n');
    expect(read(agentRoot, 'a/f.txt')).toBe('1\n');
  });

  it('records a link that points outside the agent root as a link, never following it', async () => {
    const elsewhere = mkdtempSync(join(tmpdir(), 'ribosome-outside-'));
    outside.push(elsewhere);
    bash('echo secret > f.txt && mkdir deep && echo deeper > deep/g.txt', elsewhere);
    const { store, agentRoot } = await openStore();
    unwrap(await store.startRun('r'));
    bash('mkdir -p a/deep && echo 1 > a/f.txt && echo 2 > a/deep/g.txt', agentRoot);
    const one = unwrap(await checkpointOf(store, 'r', 'one'));
    bash(`rm -rf a && ln -s ${elsewhere} a`, agentRoot);
    const two = unwrap(await checkpointOf(store, 'r', 'two'));
    expect(treeEntries(store, two.sha)).toEqual(['120000 blob a']);
    expect(storeGit(store, ['cat-file', 'blob', `${two.sha}:a`])).toBe(elsewhere);

    unwrap(await store.restore(one.sha));
    expect(kindOf(agentRoot, 'a')).toBe('dir');
    expect(read(agentRoot, 'a/deep/g.txt')).toBe('2\n');
    // The directory outside was not touched by the restore.
    expect(read(elsewhere, 'f.txt')).toBe('secret\n');
    expect(read(elsewhere, 'deep/g.txt')).toBe('deeper\n');

    unwrap(await store.restore(two.sha));
    expect(readlinkSync(join(agentRoot, 'a'))).toBe(elsewhere);
    expect(read(elsewhere, 'f.txt')).toBe('secret\n');
    expect(existsSync(join(elsewhere, 'deep/g.txt'))).toBe(true);
    expect(treePaths(store, unwrap(await checkpointOf(store, 'r', 'three')).sha)).toEqual(['a']);

    // A link made since the last checkpoint: the restore replaces it, writing nothing through it.
    unwrap(await store.restore(one.sha));
    bash(`rm -rf a && ln -s ${elsewhere} a`, agentRoot);
    unwrap(await store.restore(one.sha));
    expect(kindOf(agentRoot, 'a')).toBe('dir');
    expect(read(agentRoot, 'a/f.txt')).toBe('1\n');
    expect(read(elsewhere, 'f.txt')).toBe('secret\n');
    expect(read(elsewhere, 'deep/g.txt')).toBe('deeper\n');
  });
});
