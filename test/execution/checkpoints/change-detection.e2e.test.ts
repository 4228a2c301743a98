import { chmodSync, lstatSync, statSync, symlinkSync, unlinkSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PACK_MIN_PATHS } from '../../../src/execution/checkpoints/update-batches.ts';
import {
  bash,
  checkpointOf,
  openStore,
  showFile,
  storeGit,
  treePaths,
  unwrap,
  workFiles,
  write,
} from './helpers.ts';

/** `mode path` of one entry of a checkpoint's tree. */
function modeOf(store: Parameters<typeof storeGit>[0], sha: string, path: string): string {
  return storeGit(store, ['ls-tree', sha, '--', path]).split(' ')[0]!;
}

const OLD = new Date('2020-01-02T03:04:05Z');

describe('CheckpointStore: every change is caught, whatever its stat data says', () => {
  it('a same-size edit in the same second as the checkpoint (racy git)', async () => {
    const { store, agentRoot } = await openStore();
    unwrap(await store.startRun('r'));
    // An mtime ahead of the clock keeps the file racy (mtime not before the index's) for sure.
    const future = new Date(Date.now() + 3600_000);
    write(agentRoot, 'f.txt', 'aaaa');
    utimesSync(join(agentRoot, 'f.txt'), future, future);
    const first = unwrap(await checkpointOf(store, 'r', 'c1'));
    write(agentRoot, 'f.txt', 'bbbb');
    utimesSync(join(agentRoot, 'f.txt'), future, future);
    const second = unwrap(await checkpointOf(store, 'r', 'c2'));
    expect(showFile(store, first.sha, 'f.txt')).toBe('aaaa');
    expect(showFile(store, second.sha, 'f.txt')).toBe('bbbb');
  });

  it('a same-size edit whose mtime is set back to the recorded one (cp -p, tar, unzip)', async () => {
    const { store, agentRoot } = await openStore();
    unwrap(await store.startRun('r'));
    const path = join(agentRoot, 'f.txt');
    // git compares whole seconds of ctime here; the case it cannot see is an edit in the second of the
    // ctime it recorded. Retried until the edit lands in that second (the first try nearly always does).
    for (let attempt = 1; ; attempt++) {
      write(agentRoot, 'f.txt', `${attempt}`.padStart(8, 'a'));
      utimesSync(path, OLD, OLD);
      const before = unwrap(await checkpointOf(store, 'r', `before-${attempt}`));
      const recordedCtime = Math.floor(statSync(path).ctimeMs / 1000);
      write(agentRoot, 'f.txt', `${attempt}`.padStart(8, 'b'));
      utimesSync(path, OLD, OLD);
      if (Math.floor(statSync(path).ctimeMs / 1000) !== recordedCtime && attempt < 5) continue;
      const after = unwrap(await checkpointOf(store, 'r', `after-${attempt}`));
      expect(showFile(store, before.sha, 'f.txt')).toBe(`${attempt}`.padStart(8, 'a'));
      expect(showFile(store, after.sha, 'f.txt')).toBe(`${attempt}`.padStart(8, 'b'));
      break;
    }
  });

  it('an mtime going backwards, a mode change, a symlink retargeted, a deleted directory', async () => {
    const { store, agentRoot } = await openStore();
    write(agentRoot, 'back.txt', 'one!');
    write(agentRoot, 'tool.sh', 'echo hi\n');
    write(agentRoot, 'gone/deep/file.txt', 'x');
    write(agentRoot, 'b1', 'target one');
    write(agentRoot, 'b2', 'target two');
    symlinkSync('b1', join(agentRoot, 'link'));
    unwrap(await store.startRun('r'));
    const first = unwrap(await checkpointOf(store, 'r', 'c1'));

    write(agentRoot, 'back.txt', 'two!');
    utimesSync(join(agentRoot, 'back.txt'), OLD, OLD);
    chmodSync(join(agentRoot, 'tool.sh'), 0o755);
    unlinkSync(join(agentRoot, 'link'));
    symlinkSync('b2', join(agentRoot, 'link'));
    bash('rm -rf gone', agentRoot);
    const second = unwrap(await checkpointOf(store, 'r', 'c2'));

    expect(showFile(store, second.sha, 'back.txt')).toBe('two!');
    expect(modeOf(store, first.sha, 'tool.sh')).toBe('100644');
    expect(modeOf(store, second.sha, 'tool.sh')).toBe('100755');
    expect(storeGit(store, ['cat-file', 'blob', `${second.sha}:link`])).toBe('b2');
    expect(treePaths(store, second.sha)).toEqual(['b1', 'b2', 'back.txt', 'link', 'tool.sh']);

    unwrap(await store.restore(first.sha));
    expect(workFiles(agentRoot)).toEqual(['b1', 'b2', 'back.txt', 'gone/deep/file.txt', 'link', 'tool.sh']);
    expect(lstatSync(join(agentRoot, 'link')).isSymbolicLink()).toBe(true);
    expect(statSync(join(agentRoot, 'tool.sh')).mode & 0o111).toBe(0);
  });
});

describe('CheckpointStore: a checkpoint of many files', () => {
  // Enough for a pack (how many files go into each pack call: update-batches.test.ts).
  const count = PACK_MIN_PATHS + 10;

  it('writes them into packs, restores them exactly, and catches later edits of them', async () => {
    const { store, agentRoot } = await openStore();
    for (let i = 0; i < count; i++) write(agentRoot, `many/d${i % 50}/f${i}.txt`, `file ${i}\n`);
    write(agentRoot, 'empty.txt', '');
    write(agentRoot, 'one.txt', '1');
    symlinkSync('one.txt', join(agentRoot, 'link'));
    const initial = unwrap(await store.startRun('r'));
    const packs = storeGit(store, ['count-objects', '-v']);
    // The files in a pack; the rest (trees, tiny files, the link) loose.
    expect(packs).toMatch(/^packs: 1$/m);
    expect(Number(/^in-pack: (\d+)$/m.exec(packs)?.[1])).toBeGreaterThanOrEqual(count);

    const all = workFiles(agentRoot);
    write(agentRoot, 'many/d1/f1.txt', 'edited\n');
    bash('rm -r many/d2 && echo new > many/new.txt', agentRoot);
    const edited = unwrap(await checkpointOf(store, 'r', 'c1'));
    expect(showFile(store, edited.sha, 'many/d1/f1.txt')).toBe('edited\n');
    expect(treePaths(store, edited.sha)).toContain('many/new.txt');
    // A small checkpoint stays loose: still one pack.
    expect(storeGit(store, ['count-objects', '-v'])).toMatch(/^packs: 1$/m);

    unwrap(await store.restore(initial.sha));
    expect(workFiles(agentRoot)).toEqual(all);
    expect(showFile(store, initial.sha, 'many/d1/f1.txt')).toBe('file 1\n');
    expect(bash('cat many/d1/f1.txt one.txt && readlink link', agentRoot)).toBe('file 1\n1one.txt\n');
    expect(storeGit(store, ['fsck', '--no-dangling', '--no-progress'])).toBe('');
  });

  it('falls back to loose objects when a pack cannot be written', async () => {
    const { store, agentRoot } = await openStore();
    unwrap(await store.startRun('r'));
    for (let i = 0; i < PACK_MIN_PATHS; i++) write(agentRoot, `many/f${i}.txt`, `file ${i}\n`);
    bash('rmdir objects/pack && echo > objects/pack', store.gitDir);
    const taken = unwrap(await checkpointOf(store, 'r', 'c1'));
    expect(treePaths(store, taken.sha)).toHaveLength(PACK_MIN_PATHS);
    expect(showFile(store, taken.sha, 'many/f7.txt')).toBe('file 7\n');
    expect(storeGit(store, ['count-objects', '-v'])).toMatch(/^packs: 0$/m);
  });
});
