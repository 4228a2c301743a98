import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CheckpointStore } from '../../../src/execution/checkpoints/index.ts';
import {
  checkpointOf,
  openStore,
  showFile,
  storeGit,
  tempExecution,
  treePaths,
  unwrap,
  write,
} from './helpers.ts';

describe('CheckpointStore: writing and listing', () => {
  it('keeps the store in .ribosome/checkpoints.git, outside the agent root', async () => {
    const { store, dir } = await openStore();
    expect(store.gitDir).toMatch(/\.ribosome\/checkpoints\.git$/);
    expect(store.gitDir.startsWith(dir) || store.gitDir.includes('ribosome-checkpoints-')).toBe(true);
    expect(storeGit(store, ['rev-parse', '--is-bare-repository']).trim()).toBe('true');
  });

  it('writes a checkpoint of each type with its files and metadata', async () => {
    const { store, agentRoot } = await openStore({ now: () => new Date('2026-03-04T05:06:07.089Z') });
    write(agentRoot, 'README.md', 'hello\n');
    const initial = unwrap(await store.startRun('run-1'));
    expect(initial).toMatchObject({
      initial: true,
      codonId: '',
      checkpointType: 'rig-setup',
      parentSha: null,
    });

    const shas: Record<string, string> = {};
    for (const type of ['rig-setup', 'completed', 'error', 'skipped'] as const) {
      write(agentRoot, `${type}.txt`, `made before the ${type} checkpoint\n`);
      const created = unwrap(await checkpointOf(store, 'run-1', `codon-${type}`, type));
      expect(created).toMatchObject({
        runId: 'run-1',
        codonId: `codon-${type}`,
        codonName: `Codon codon-${type}`,
        checkpointType: type,
        timestamp: '2026-03-04T05:06:07.089Z',
        initial: false,
        skippedLargeFiles: [],
      });
      expect(created.sha).toMatch(/^[0-9a-f]{40}$/);
      shas[type] = created.sha;
      expect(showFile(store, created.sha, `${type}.txt`)).toBe(`made before the ${type} checkpoint\n`);
    }
    expect(treePaths(store, shas.skipped!)).toEqual([
      'README.md',
      'completed.txt',
      'error.txt',
      'rig-setup.txt',
      'skipped.txt',
    ]);
    expect(treePaths(store, shas['rig-setup']!)).toEqual(['README.md', 'rig-setup.txt']);

    const listed = unwrap(await store.list('run-1'));
    expect(listed.map((c) => c.checkpointType)).toEqual([
      'rig-setup',
      'rig-setup',
      'completed',
      'error',
      'skipped',
    ]);
    expect(listed.map((c) => c.status)).toEqual(['pending', 'preparing', 'completed', 'failed', 'skipped']);
    expect(listed[0]!.initial).toBe(true);
    expect(listed.at(-1)!.sha).toBe(shas.skipped);
    // Metadata readable with plain git too.
    expect(
      storeGit(store, [
        'log',
        '-1',
        '--format=%(trailers:key=Ribosome-Codon-Id,valueonly)',
        shas.error!,
      ]).trim(),
    ).toBe('codon-error');
  });

  it('writes a checkpoint when nothing changed, so every step has a SHA', async () => {
    const { store, agentRoot } = await openStore();
    write(agentRoot, 'a.txt', 'a');
    unwrap(await store.startRun('r'));
    const first = unwrap(await checkpointOf(store, 'r', 'c1'));
    const second = unwrap(await checkpointOf(store, 'r', 'c2'));
    expect(second.sha).not.toBe(first.sha);
    expect(second.parentSha).toBe(first.sha);
    expect(storeGit(store, ['rev-parse', `${first.sha}^{tree}`])).toBe(
      storeGit(store, ['rev-parse', `${second.sha}^{tree}`]),
    );
  });

  it('checkpoints an empty agent root', async () => {
    const { store } = await openStore();
    const initial = unwrap(await store.startRun('r'));
    expect(treePaths(store, initial.sha)).toEqual([]);
  });

  it('keeps one branch per run; a new run grows from an old checkpoint and the old run stays listable', async () => {
    const { store, agentRoot } = await openStore();
    unwrap(await store.startRun('run-a'));
    write(agentRoot, 'one.txt', '1');
    const a1 = unwrap(await checkpointOf(store, 'run-a', 'c1'));
    write(agentRoot, 'two.txt', '2');
    const a2 = unwrap(await checkpointOf(store, 'run-a', 'c2'));
    expect(unwrap(await store.currentBranch())).toBe('run/run-a');

    unwrap(await store.restore(a1.sha));
    const bInitial = unwrap(await store.startRun('run-b', { fromSha: a1.sha.slice(0, 8) }));
    expect(bInitial.parentSha).toBe(a1.sha);
    write(agentRoot, 'three.txt', '3');
    const b1 = unwrap(await checkpointOf(store, 'run-b', 'c2'));
    expect(unwrap(await store.currentBranch())).toBe('run/run-b');

    const runs = unwrap(await store.runs());
    expect(runs.map((r) => [r.runId, r.headSha]).sort()).toEqual([
      ['run-a', a2.sha],
      ['run-b', b1.sha],
    ]);
    const lineageB = unwrap(await store.list('run-b'));
    expect(lineageB.map((c) => `${c.runId}:${c.initial ? 'init' : c.codonId}`)).toEqual([
      'run-a:init',
      'run-a:c1',
      'run-b:init',
      'run-b:c2',
    ]);
    expect(unwrap(await store.list('run-b', { scope: 'run' })).map((c) => c.sha)).toEqual([
      bInitial.sha,
      b1.sha,
    ]);
    expect(
      unwrap(await store.list('run-a'))
        .map((c) => c.sha)
        .at(-1),
    ).toBe(a2.sha);
    const all = unwrap(await store.listAll());
    expect(all).toHaveLength(5);
    expect(new Set(all.map((c) => c.sha)).size).toBe(5);
    expect(unwrap(await store.initialCheckpoint('run-b')).sha).toBe(bInitial.sha);
    expect(treePaths(store, b1.sha)).toEqual(['one.txt', 'three.txt']);
  });

  it('continues from HEAD when a run starts without fromSha', async () => {
    const { store } = await openStore();
    unwrap(await store.startRun('first'));
    const tip = unwrap(await checkpointOf(store, 'first', 'c1'));
    expect(unwrap(await store.startRun('second')).parentSha).toBe(tip.sha);
  });

  it('resolves full and short SHAs, and refuses unknown ones', async () => {
    const { store } = await openStore();
    unwrap(await store.startRun('r'));
    const created = unwrap(await checkpointOf(store, 'r', 'c1'));
    expect(unwrap(await store.resolve(created.sha)).codonId).toBe('c1');
    expect(unwrap(await store.resolve(created.sha.slice(0, 7))).sha).toBe(created.sha);
    const unknown = await store.resolve(created.sha.startsWith('0000') ? 'ffff' : '0000');
    expect(unknown.ok ? 'ok' : unknown.error.code).toBe('CHECKPOINT_NOT_FOUND');
    const tree = storeGit(store, ['rev-parse', `${created.sha}^{tree}`]).trim();
    for (const full of [tree, '0'.repeat(40)]) {
      const notCheckpoint = await store.resolve(full);
      expect(notCheckpoint.ok ? 'ok' : notCheckpoint.error.code).toBe('CHECKPOINT_NOT_FOUND');
    }
    expect(unwrap(await store.resolve(created.sha.toUpperCase())).sha).toBe(created.sha);
    const tooShort = await store.resolve('abc');
    expect(tooShort.ok ? 'ok' : tooShort.error.code).toBe('INVALID_INPUT');
  });

  it('resolves rollback.toCodon requests over the run', async () => {
    const { store } = await openStore();
    const initial = unwrap(await store.startRun('r'));
    const c1 = unwrap(await checkpointOf(store, 'r', 'c1', 'completed'));
    const c2setup = unwrap(await checkpointOf(store, 'r', 'c2', 'rig-setup'));
    const c2error = unwrap(await checkpointOf(store, 'r', 'c2', 'error'));
    const sha = async (codon: string, request: Parameters<CheckpointStore['resolveCodon']>[2]) =>
      unwrap(await store.resolveCodon('r', codon, request)).sha;
    expect(await sha('c1', 'start')).toBe(initial.sha);
    expect(await sha('c1', 'end')).toBe(c1.sha);
    expect(await sha('c2', 'start')).toBe(c2setup.sha);
    expect(await sha('c2', 'end')).toBe(c2error.sha);
    const missing = await store.resolveCodon('r', 'c2', 'completed');
    expect(missing.ok ? 'ok' : missing.error.code).toBe('CHECKPOINT_NOT_FOUND');
  });

  it('reports the lines changed between checkpoints', async () => {
    const { store, agentRoot } = await openStore();
    write(agentRoot, 'a.txt', 'one\ntwo\n');
    const from = unwrap(await store.startRun('r'));
    write(agentRoot, 'a.txt', 'one\nTWO\nthree\n');
    write(agentRoot, 'b.bin', Buffer.from([0, 1, 2, 0]));
    const to = unwrap(await checkpointOf(store, 'r', 'c1'));
    expect(unwrap(await store.diffStat(from.sha, to.sha))).toEqual({
      files: [
        { path: 'a.txt', added: 2, deleted: 1 },
        { path: 'b.bin', added: null, deleted: null },
      ],
      added: 2,
      deleted: 1,
    });
  });

  it('serializes concurrent calls: a list during a checkpoint sees a whole store', async () => {
    const { store, agentRoot } = await openStore();
    unwrap(await store.startRun('r'));
    const creates = [];
    const lists = [];
    for (let i = 0; i < 5; i++) {
      write(agentRoot, `f${i}.txt`, `${i}`);
      creates.push(checkpointOf(store, 'r', `c${i}`));
      lists.push(store.list('r'), store.listAll());
    }
    for (const created of await Promise.all(creates)) unwrap(created);
    const sizes = (await Promise.all(lists)).map((list) => unwrap(list).length);
    // Each list ran after the checkpoint queued before it and before the next one.
    expect(sizes).toEqual([2, 2, 3, 3, 4, 4, 5, 5, 6, 6]);
    await store.idle();
  });

  it('compacts the store and keeps every checkpoint', async () => {
    const { store, agentRoot } = await openStore();
    unwrap(await store.startRun('r'));
    write(agentRoot, 'a.txt', 'a');
    const c1 = unwrap(await checkpointOf(store, 'r', 'c1'));
    unwrap(await store.compact());
    expect(showFile(store, c1.sha, 'a.txt')).toBe('a');
    expect(unwrap(await store.list('r'))).toHaveLength(2);
  });

  it('reopens an existing store', async () => {
    const { store, dir, agentRoot } = await openStore();
    unwrap(await store.startRun('r'));
    const c1 = unwrap(await checkpointOf(store, 'r', 'c1'));
    const again = unwrap(await CheckpointStore.open({ executionDir: dir, workTree: agentRoot }));
    expect(unwrap(await again.resolve(c1.sha.slice(0, 10))).codonId).toBe('c1');
    unwrap(await checkpointOf(again, 'r', 'c2'));
  });
});

describe('CheckpointStore: errors', () => {
  it('refuses contradictory options at construction', async () => {
    const { dir, agentRoot } = tempExecution();
    await expect(CheckpointStore.open({ workTree: agentRoot })).rejects.toThrow(TypeError);
    await expect(
      CheckpointStore.open({ executionDir: dir, gitDir: join(dir, 'x.git'), workTree: agentRoot }),
    ).rejects.toThrow('exactly one');
    await expect(
      CheckpointStore.open({ gitDir: join(agentRoot, '.git'), workTree: agentRoot }),
    ).rejects.toThrow('.git');
    await expect(CheckpointStore.open({ gitDir: dir, workTree: agentRoot })).rejects.toThrow(
      'inside the store',
    );
    await expect(
      CheckpointStore.open({ executionDir: dir, workTree: agentRoot, maxFileBytes: -1 }),
    ).rejects.toThrow(TypeError);
  });

  it('reports a missing git as GIT_UNAVAILABLE', async () => {
    const { dir, agentRoot } = tempExecution();
    const opened = await CheckpointStore.open({
      executionDir: dir,
      workTree: agentRoot,
      gitBinary: 'no-such-git-binary',
    });
    expect(opened.ok ? 'ok' : opened.error.code).toBe('GIT_UNAVAILABLE');
  });

  it('reports a missing agent root as STORE_UNAVAILABLE', async () => {
    const { dir } = tempExecution();
    const opened = await CheckpointStore.open({ executionDir: dir, workTree: join(dir, 'nope') });
    expect(opened.ok ? 'ok' : opened.error.code).toBe('STORE_UNAVAILABLE');
  });

  it('refuses runs that do not exist or already exist, and invalid input', async () => {
    const { store } = await openStore();
    const notStarted = await checkpointOf(store, 'ghost', 'c1');
    expect(notStarted.ok ? 'ok' : notStarted.error.code).toBe('RUN_NOT_FOUND');
    unwrap(await store.startRun('r'));
    const twice = await store.startRun('r');
    expect(twice.ok ? 'ok' : twice.error.code).toBe('RUN_EXISTS');
    const badType = await store.create({
      runId: 'r',
      codonId: 'c1',
      codonName: 'x',
      checkpointType: 'finished' as 'completed',
      status: 'completed',
    });
    expect(badType.ok ? 'ok' : badType.error.code).toBe('INVALID_INPUT');
    const noCodon = await store.create({
      runId: 'r',
      codonId: '',
      codonName: '',
      checkpointType: 'completed',
      status: 'completed',
    });
    expect(noCodon.ok ? 'ok' : noCodon.error.code).toBe('INVALID_INPUT');
    const fromUnknown = await store.startRun('r2', { fromSha: 'deadbeef' });
    expect(fromUnknown.ok ? 'ok' : fromUnknown.error.code).toBe('CHECKPOINT_NOT_FOUND');
    const listUnknown = await store.list('ghost');
    expect(listUnknown.ok ? 'ok' : listUnknown.error.code).toBe('RUN_NOT_FOUND');
  });

  // With durable (fsyncMethod=batch) git 2.39's update-index does not report that moving the new
  // objects failed; write-tree, which checks every object it links, does.
  it.each([
    [true, /git write-tree.*invalid object/s],
    [false, /git update-index.*new\.txt/s],
  ])(
    'fails loudly with CHECKPOINT_FAILED when the store cannot be written (durable %s)',
    async (durable, message) => {
      const { store, agentRoot } = await openStore({ durable });
      unwrap(await store.startRun('r'));
      // A file where git must create the object's directory: unwritable even for root. The content
      // is one whose directory no earlier object (the initial commit, by its time) has made.
      let content = '';
      let blob = '';
      for (let i = 0; blob === '' || existsSync(join(store.gitDir, 'objects', blob.slice(0, 2))); i++) {
        content = `new content ${i}`;
        blob = storeGit(store, ['hash-object', '--stdin'], content).trim();
      }
      write(agentRoot, 'new.txt', content);
      write(store.gitDir, `objects/${blob.slice(0, 2)}`, '');
      const failed = await checkpointOf(store, 'r', 'c1');
      expect(failed.ok).toBe(false);
      if (!failed.ok) {
        expect(failed.error.code).toBe('CHECKPOINT_FAILED');
        expect(failed.error.message).toMatch(message);
      }
      expect(unwrap(await store.list('r'))).toHaveLength(1);
    },
  );

  it('fails loudly with CHECKPOINT_FAILED when git cannot write (a held index lock)', async () => {
    const { store, agentRoot } = await openStore();
    unwrap(await store.startRun('r'));
    write(agentRoot, 'new.txt', 'new content');
    write(store.gitDir, 'index.lock', '');
    const failed = await checkpointOf(store, 'r', 'c1');
    expect(failed.ok).toBe(false);
    if (!failed.ok) {
      expect(failed.error.code).toBe('CHECKPOINT_FAILED');
      expect(failed.error.message).toContain('index.lock');
    }
    expect(unwrap(await store.list('r'))).toHaveLength(1);
  });

  it('fails loudly with CHECKPOINT_FAILED on an unreadable file', async () => {
    const { store, agentRoot } = await openStore();
    unwrap(await store.startRun('r'));
    write(agentRoot, 'secret.txt', 'x');
    chmodSync(join(agentRoot, 'secret.txt'), 0o000);
    const failed = await checkpointOf(store, 'r', 'c1');
    chmodSync(join(agentRoot, 'secret.txt'), 0o600);
    if (process.getuid?.() === 0) {
      // root reads anything: the checkpoint simply succeeds.
      expect(failed.ok).toBe(true);
      return;
    }
    expect(failed.ok ? 'ok' : failed.error.code).toBe('CHECKPOINT_FAILED');
    expect(failed.ok ? '' : failed.error.message).toContain('secret.txt');
  });

  it('removes stale locks (index, run branch) when the store is reopened', async () => {
    const { store, dir, agentRoot } = await openStore();
    unwrap(await store.startRun('r'));
    write(store.gitDir, 'index.lock', '');
    write(store.gitDir, 'refs/heads/run/r.lock', '');
    const blocked = await checkpointOf(store, 'r', 'c0');
    expect(blocked.ok ? 'ok' : blocked.error.code).toBe('CHECKPOINT_FAILED');
    const reopened = unwrap(await CheckpointStore.open({ executionDir: dir, workTree: agentRoot }));
    unwrap(await checkpointOf(reopened, 'r', 'c1'));
  });

  it('removes the temporary pack and object files a killed write left when the store is reopened', async () => {
    const { store, dir, agentRoot } = await openStore();
    unwrap(await store.startRun('r'));
    unwrap(await checkpointOf(store, 'r', 'c0'));
    const left = ['objects/pack/tmp_pack_a1b2c3', 'objects/pack/tmp_idx_a1b2c3', 'objects/ab/tmp_obj_d4e5f6'];
    for (const path of left) write(store.gitDir, path, 'partial');
    const reopened = unwrap(await CheckpointStore.open({ executionDir: dir, workTree: agentRoot }));
    for (const path of left) expect(existsSync(join(store.gitDir, path)), path).toBe(false);
    unwrap(await checkpointOf(reopened, 'r', 'c1'));
    const fsck = spawnSync('git', ['--git-dir', store.gitDir, 'fsck', '--strict'], { encoding: 'utf8' });
    expect(fsck.status, fsck.stderr).toBe(0);
  });
});
