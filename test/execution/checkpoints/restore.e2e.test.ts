import { existsSync, mkdirSync, readlinkSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CheckpointStore } from '../../../src/execution/checkpoints/index.ts';
import {
  bash,
  checkpointOf,
  openStore,
  read,
  showFile,
  treePaths,
  unwrap,
  workFiles,
  write,
} from './helpers.ts';

describe('CheckpointStore: restore', () => {
  it('removes files made after the checkpoint and brings back deleted and modified ones', async () => {
    const { store, agentRoot } = await openStore();
    write(agentRoot, 'keep.txt', 'original\n');
    write(agentRoot, 'edit.txt', 'v1\n');
    write(agentRoot, 'doomed/inner.txt', 'inner\n');
    unwrap(await store.startRun('r'));
    const target = unwrap(await checkpointOf(store, 'r', 'c1'));

    write(agentRoot, 'edit.txt', 'v2\n');
    bash(
      'rm -r doomed keep.txt && mkdir -p new/deep && echo x > new/deep/file && echo y > top.txt',
      agentRoot,
    );
    unwrap(await checkpointOf(store, 'r', 'c2'));
    // Changes after the last checkpoint are discarded too.
    write(agentRoot, 'edit.txt', 'v3, never checkpointed\n');
    write(agentRoot, 'late.txt', 'late\n');

    const tip = unwrap(await store.runs())[0]!.headSha;
    const restored = unwrap(await store.restore(target.sha.slice(0, 6)));
    expect(restored.checkpoint.sha).toBe(target.sha);
    // Branches stay where they were.
    expect(unwrap(await store.currentBranch())).toBe('run/r');
    expect(unwrap(await store.runs())[0]!.headSha).toBe(tip);
    expect(workFiles(agentRoot)).toEqual(['doomed/inner.txt', 'edit.txt', 'keep.txt']);
    expect(read(agentRoot, 'edit.txt')).toBe('v1\n');
    expect(read(agentRoot, 'keep.txt')).toBe('original\n');
    expect(existsSync(join(agentRoot, 'new'))).toBe(false);
    expect(restored.removedFiles).toBe(3);
  });

  it('captures files made by Bash and rolls them back', async () => {
    const { store, agentRoot } = await openStore();
    unwrap(await store.startRun('r'));
    const before = unwrap(await checkpointOf(store, 'r', 'c1', 'rig-setup'));
    bash(
      'mkdir -p build && for i in 1 2 3; do echo "line $i" > build/out$i.log.txt; done && printf "#!/bin/sh\\n" > run.sh && chmod +x run.sh',
      agentRoot,
    );
    const after = unwrap(await checkpointOf(store, 'r', 'c1'));
    expect(treePaths(store, after.sha)).toEqual([
      'build/out1.log.txt',
      'build/out2.log.txt',
      'build/out3.log.txt',
      'run.sh',
    ]);
    expect(showFile(store, after.sha, 'build/out2.log.txt')).toBe('line 2\n');

    unwrap(await store.restore(before.sha));
    expect(workFiles(agentRoot)).toEqual([]);
    unwrap(await store.restore(after.sha));
    expect(workFiles(agentRoot)).toHaveLength(4);
    expect(bash('test -x run.sh && echo executable', agentRoot)).toBe('executable\n');
  });

  it('goes back across 5 checkpoints and forward again', async () => {
    const { store, agentRoot } = await openStore();
    write(agentRoot, 'log.txt', 'start\n');
    unwrap(await store.startRun('r'));
    const states: Array<{ sha: string; files: string[]; log: string }> = [];
    for (let i = 1; i <= 5; i++) {
      write(agentRoot, 'log.txt', `${read(agentRoot, 'log.txt')}step ${i}\n`);
      write(agentRoot, `step${i}.txt`, `${i}`);
      if (i > 1) bash(`rm step${i - 1}.txt`, agentRoot);
      const sha = unwrap(await checkpointOf(store, 'r', `c${i}`)).sha;
      states.push({ sha, files: workFiles(agentRoot), log: read(agentRoot, 'log.txt') });
    }
    for (const index of [0, 4, 2, 1, 3]) {
      const state = states[index]!;
      unwrap(await store.restore(state.sha));
      expect(workFiles(agentRoot)).toEqual(state.files);
      expect(read(agentRoot, 'log.txt')).toBe(state.log);
    }
  });

  it('leaves ignored files alone and keeps them out of checkpoints', async () => {
    const { store, agentRoot } = await openStore({ excludes: ['*.secret'] });
    write(agentRoot, '.gitignore', 'node_modules/\n*.log\n');
    write(agentRoot, 'sub/.gitignore', 'cache/\n');
    write(agentRoot, 'src/app.ts', 'app');
    unwrap(await store.startRun('r'));
    const target = unwrap(await checkpointOf(store, 'r', 'c1'));
    write(agentRoot, 'node_modules/dep/index.js', 'dep');
    write(agentRoot, 'debug.log', 'log');
    write(agentRoot, 'sub/cache/blob', 'cache');
    write(agentRoot, 'token.secret', 'secret');
    write(agentRoot, 'src/new.ts', 'new');
    const later = unwrap(await checkpointOf(store, 'r', 'c2'));
    expect(treePaths(store, later.sha)).toEqual(['.gitignore', 'src/app.ts', 'src/new.ts', 'sub/.gitignore']);

    unwrap(await store.restore(target.sha));
    expect(workFiles(agentRoot)).toEqual([
      '.gitignore',
      'debug.log',
      'node_modules/dep/index.js',
      'src/app.ts',
      'sub/.gitignore',
      'sub/cache/blob',
      'token.secret',
    ]);
  });

  it('include: ignored paths every checkpoint takes, restored like any file; none beyond a link', async () => {
    const { store, dir, agentRoot } = await openStore({
      include: ['keep.log', Buffer.from('logs/a.log'), 'gone.log', 'moved/b.log'],
    });
    for (const bad of ['../up', '/abs', 'a/.git/config', 'a//b']) {
      await expect(
        CheckpointStore.open({ executionDir: '/x', workTree: '/x/w', include: [bad] }),
      ).rejects.toThrow(TypeError);
    }
    write(agentRoot, '.gitignore', '*.log\n');
    write(agentRoot, 'keep.log', 'v1');
    write(agentRoot, 'logs/a.log', 'a1');
    write(agentRoot, 'other.log', 'not included');
    write(agentRoot, 'moved/b.log', 'b1');
    const initial = unwrap(await store.startRun('r'));
    expect(treePaths(store, initial.sha)).toEqual(['.gitignore', 'keep.log', 'logs/a.log', 'moved/b.log']);

    write(agentRoot, 'keep.log', 'v2');
    // A link to a directory outside the agent root (the test's own: a restore that followed it
    // would write there, never into the system).
    const elsewhere = join(dir, 'elsewhere');
    mkdirSync(elsewhere);
    bash(`rm logs/a.log && rm -r moved && ln -s ${elsewhere} moved`, agentRoot);
    const changed = unwrap(await checkpointOf(store, 'r', 'c1'));
    expect(showFile(store, changed.sha, 'keep.log')).toBe('v2');
    // Gone, and behind a link (never followed): out of the checkpoint.
    expect(treePaths(store, changed.sha)).toEqual(['.gitignore', 'keep.log', 'moved']);
    write(agentRoot, 'logs/a.log', 'a3');
    const back = unwrap(await checkpointOf(store, 'r', 'c2'));
    expect(showFile(store, back.sha, 'logs/a.log')).toBe('a3');

    unwrap(await store.restore(initial.sha));
    expect(read(agentRoot, 'keep.log')).toBe('v1');
    expect(read(agentRoot, 'logs/a.log')).toBe('a1');
    expect(read(agentRoot, 'moved/b.log')).toBe('b1');
    expect(read(agentRoot, 'other.log')).toBe('not included');
    expect(existsSync(join(elsewhere, 'b.log'))).toBe(false);
  });

  it('leaves files over the size cap out of checkpoints, reports them, and leaves them in place on restore', async () => {
    const { store, agentRoot } = await openStore({ maxFileBytes: 1000 });
    write(agentRoot, 'small.txt', 'small');
    write(agentRoot, 'grows.txt', 'small for now');
    unwrap(await store.startRun('r'));
    const first = unwrap(await checkpointOf(store, 'r', 'c1'));
    write(agentRoot, 'big.bin', Buffer.alloc(5000, 1));
    write(agentRoot, 'grows.txt', 'x'.repeat(2000));
    const second = unwrap(await checkpointOf(store, 'r', 'c2'));
    expect(second.skippedLargeFiles).toEqual([
      { path: 'big.bin', bytes: 5000 },
      { path: 'grows.txt', bytes: 2000 },
    ]);
    expect(treePaths(store, second.sha)).toEqual(['small.txt']);
    expect(treePaths(store, first.sha)).toEqual(['grows.txt', 'small.txt']);

    unwrap(await store.restore(second.sha));
    // Not in the checkpoint, over the cap: left alone.
    expect(workFiles(agentRoot)).toEqual(['big.bin', 'grows.txt', 'small.txt']);
    const back = unwrap(await store.restore(first.sha));
    expect(back.keptLargeFiles).toEqual([{ path: 'big.bin', bytes: 5000 }]);
    // The checkpoint has grows.txt, so its version comes back.
    expect(read(agentRoot, 'grows.txt')).toBe('small for now');
  });

  it('handles paths with spaces, unicode and shell characters', async () => {
    const { store, agentRoot } = await openStore();
    const names = [
      'with space.txt',
      'ünïcödé/日本語.md',
      'quote"and\'apostrophe',
      'star*[x]?.txt',
      ' lead',
      'tab\there',
      '#hash',
      '!bang',
    ];
    unwrap(await store.startRun('r'));
    const empty = unwrap(await checkpointOf(store, 'r', 'c0'));
    for (const name of names) write(agentRoot, name, `content of ${name}`);
    const full = unwrap(await checkpointOf(store, 'r', 'c1'));
    expect(treePaths(store, full.sha)).toEqual([...names].sort());
    expect(showFile(store, full.sha, 'ünïcödé/日本語.md')).toBe('content of ünïcödé/日本語.md');

    unwrap(await store.restore(empty.sha));
    expect(workFiles(agentRoot)).toEqual([]);
    unwrap(await store.restore(full.sha));
    expect(workFiles(agentRoot)).toEqual([...names].sort());
  });

  it('keeps file names that are not UTF-8', async () => {
    const { store, agentRoot } = await openStore();
    unwrap(await store.startRun('r'));
    const empty = unwrap(await checkpointOf(store, 'r', 'c0'));
    bash("touch $'latin1-\\xe9.txt'", agentRoot);
    const withFile = unwrap(await checkpointOf(store, 'r', 'c1'));
    unwrap(await store.restore(empty.sha));
    expect(bash('ls -A | wc -l', agentRoot).trim()).toBe('0');
    unwrap(await store.restore(withFile.sha));
    expect(bash("test -f $'latin1-\\xe9.txt' && echo yes", agentRoot)).toBe('yes\n');
  });

  it('stores symlinks as links and brings them back', async () => {
    const { store, agentRoot } = await openStore();
    write(agentRoot, 'target.txt', 't');
    symlinkSync('target.txt', join(agentRoot, 'link'));
    unwrap(await store.startRun('r'));
    const sha = unwrap(await checkpointOf(store, 'r', 'c1')).sha;
    bash('rm link && ln -s elsewhere link2', agentRoot);
    unwrap(await store.restore(sha));
    expect(readlinkSync(join(agentRoot, 'link'))).toBe('target.txt');
    expect(existsSync(join(agentRoot, 'link2'))).toBe(false);
  });

  it('turns a file back into a directory and a directory back into a file', async () => {
    const { store, agentRoot } = await openStore();
    write(agentRoot, 'thing', 'a file');
    write(agentRoot, 'place/inside.txt', 'in a directory');
    unwrap(await store.startRun('r'));
    const before = unwrap(await checkpointOf(store, 'r', 'c1'));
    bash(
      'rm thing && mkdir thing && echo inner > thing/x && rm -r place && echo now-a-file > place',
      agentRoot,
    );
    const after = unwrap(await checkpointOf(store, 'r', 'c2'));
    expect(treePaths(store, after.sha)).toEqual(['place', 'thing/x']);
    unwrap(await store.restore(before.sha));
    expect(read(agentRoot, 'thing')).toBe('a file');
    expect(read(agentRoot, 'place/inside.txt')).toBe('in a directory');
  });

  it('leaves empty directories that were there before alone, and removes those it emptied', async () => {
    const { store, agentRoot } = await openStore();
    mkdirSync(join(agentRoot, 'empty-before'));
    unwrap(await store.startRun('r'));
    const sha = unwrap(await checkpointOf(store, 'r', 'c1')).sha;
    write(agentRoot, 'a/b/c/file.txt', 'x');
    unwrap(await store.restore(sha));
    expect(existsSync(join(agentRoot, 'a'))).toBe(false);
    expect(existsSync(join(agentRoot, 'empty-before'))).toBe(true);
  });
});
