import { chmodSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { deflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import type { CheckpointStore } from '../../../src/execution/checkpoints/index.ts';
import { checkpointOf, openStore, read, storeGit, unwrap, workFiles, write } from './helpers.ts';

/** Overwrites a loose object's file as an agent's shell could: a valid object of other content. */
function poison(store: CheckpointStore, oid: string, type: string, content: string): void {
  const file = join(store.gitDir, 'objects', oid.slice(0, 2), oid.slice(2));
  chmodSync(file, 0o644);
  writeFileSync(
    file,
    deflateSync(Buffer.concat([Buffer.from(`${type} ${content.length}\0`), Buffer.from(content)])),
  );
}

/** Codon one writes `a.txt` = one, codon two changes it: restoring one must read one's blob. */
async function twoCheckpoints() {
  const opened = await openStore();
  const { store, agentRoot } = opened;
  write(agentRoot, 'src/a.txt', 'one\n');
  write(agentRoot, 'b.txt', 'same\n');
  unwrap(await store.startRun('r'));
  const one = unwrap(await checkpointOf(store, 'r', 'one'));
  write(agentRoot, 'src/a.txt', 'two\n');
  write(agentRoot, 'c.txt', 'new\n');
  unwrap(await checkpointOf(store, 'r', 'two'));
  return { ...opened, one };
}

describe('CheckpointStore: a restore checks the objects it reads', () => {
  it('refuses a checkpoint whose blob was overwritten, and leaves the agent root as it was', async () => {
    const { store, agentRoot, one } = await twoCheckpoints();
    const blob = storeGit(store, ['rev-parse', `${one.sha}:src/a.txt`]).trim();
    poison(store, blob, 'blob', 'EVIL\n');

    const restored = await store.restore(one.sha);
    expect(restored.ok).toBe(false);
    if (restored.ok) return;
    expect(restored.error.code).toBe('CHECKPOINT_CORRUPT');
    expect(restored.error.message).toContain(blob.slice(0, 12));
    expect(restored.error.message).toContain('src/a.txt');
    expect(read(agentRoot, 'src/a.txt')).toBe('two\n');
    expect(workFiles(agentRoot)).toEqual(['b.txt', 'c.txt', 'src/a.txt']);
  });

  it('refuses a checkpoint whose tree was overwritten to name another valid blob', async () => {
    const { store, agentRoot, one } = await twoCheckpoints();
    const tree = storeGit(store, ['rev-parse', `${one.sha}:src`]).trim();
    const evil = storeGit(store, ['hash-object', '-w', '--stdin'], 'EVIL\n').trim();
    const entry = Buffer.concat([Buffer.from('100644 a.txt\0'), Buffer.from(evil, 'hex')]);
    const file = join(store.gitDir, 'objects', tree.slice(0, 2), tree.slice(2));
    chmodSync(file, 0o644);
    writeFileSync(file, deflateSync(Buffer.concat([Buffer.from(`tree ${entry.length}\0`), entry])));

    const restored = await store.restore(one.sha);
    expect(restored.ok ? 'restored' : restored.error.code).toBe('CHECKPOINT_CORRUPT');
    expect(read(agentRoot, 'src/a.txt')).toBe('two\n');
  });

  it('refuses a checkpoint whose object file was deleted', async () => {
    const { store, agentRoot, one } = await twoCheckpoints();
    const blob = storeGit(store, ['rev-parse', `${one.sha}:src/a.txt`]).trim();
    rmSync(join(store.gitDir, 'objects', blob.slice(0, 2), blob.slice(2)));

    const restored = await store.restore(one.sha);
    expect(restored.ok ? 'restored' : restored.error.code).toBe('CHECKPOINT_CORRUPT');
    expect(read(agentRoot, 'src/a.txt')).toBe('two\n');
  });

  it('restores as before when only an object the restore does not write is damaged', async () => {
    // b.txt is the same in both checkpoints and on disk: its blob is not read, so not checked.
    const { store, agentRoot, one } = await twoCheckpoints();
    const blob = storeGit(store, ['rev-parse', `${one.sha}:b.txt`]).trim();
    poison(store, blob, 'blob', 'EVIL\n');

    unwrap(await store.restore(one.sha));
    expect(read(agentRoot, 'src/a.txt')).toBe('one\n');
    expect(read(agentRoot, 'b.txt')).toBe('same\n');
    expect(workFiles(agentRoot)).toEqual(['b.txt', 'src/a.txt']);
  });

  it('checks the blob of a file the agent changed since the checkpoint', async () => {
    const { store, agentRoot, one } = await twoCheckpoints();
    const blob = storeGit(store, ['rev-parse', `${one.sha}:b.txt`]).trim();
    poison(store, blob, 'blob', 'EVIL\n');
    write(agentRoot, 'b.txt', 'edited after the last checkpoint\n');

    const restored = await store.restore(one.sha);
    expect(restored.ok ? 'restored' : restored.error.code).toBe('CHECKPOINT_CORRUPT');
    expect(read(agentRoot, 'b.txt')).toBe('edited after the last checkpoint\n');
  });
});
