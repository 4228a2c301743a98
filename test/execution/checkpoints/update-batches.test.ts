import { describe, expect, it } from 'vitest';
import { hashAgain } from '../../../src/execution/checkpoints/recheck.ts';
import {
  PACK_MAX_PATHS,
  PACK_MIN_PATHS,
  updateBatches,
} from '../../../src/execution/checkpoints/update-batches.ts';

const paths = (n: number, prefix = 'f') => Array.from({ length: n }, (_, i) => Buffer.from(`${prefix}${i}`));
const names = (list: Buffer[]) => list.map((p) => p.toString());
const all = () => true;

describe('updateBatches', () => {
  it('keeps a small checkpoint in one loose call, and makes none for nothing', () => {
    expect(updateBatches([], all, true)).toEqual([]);
    const few = paths(PACK_MIN_PATHS - 1);
    expect(updateBatches(few, all, true)).toEqual([{ paths: few, pack: false }]);
  });

  it('never packs when git cannot (before 2.37)', () => {
    const many = paths(PACK_MAX_PATHS * 2);
    expect(updateBatches(many, all, false)).toEqual([{ paths: many, pack: false }]);
  });

  it('splits many files into even pack calls of at most PACK_MAX_PATHS, every path once', () => {
    const many = paths(PACK_MAX_PATHS * 2 + 1);
    const batches = updateBatches(many, all, true);
    expect(batches).toHaveLength(3);
    for (const batch of batches) {
      expect(batch.pack).toBe(true);
      expect(batch.paths.length).toBeLessThanOrEqual(PACK_MAX_PATHS);
      expect(batch.paths.length).toBeGreaterThan(PACK_MAX_PATHS / 2);
    }
    expect(batches.flatMap((b) => names(b.paths))).toEqual(names(many));
  });

  it('sends links, tiny files and removals to a loose call of their own', () => {
    const files = paths(PACK_MIN_PATHS);
    const others = paths(3, 'link');
    const batches = updateBatches(
      [...others.slice(0, 1), ...files, ...others.slice(1)],
      (p) => !p.toString().startsWith('link'),
      true,
    );
    expect(batches.map((b) => [b.pack, b.paths.length])).toEqual([
      [false, 3],
      [true, PACK_MIN_PATHS],
    ]);
    expect(names(batches[0]!.paths)).toEqual(names(others));
  });

  it('counts only packable files towards the threshold', () => {
    const mixed = [...paths(PACK_MIN_PATHS - 1), ...paths(10, 'link')];
    expect(updateBatches(mixed, (p) => !p.toString().startsWith('link'), true)).toEqual([
      { paths: mixed, pack: false },
    ]);
  });
});

describe('hashAgain', () => {
  const entry = (path: string, ctime: bigint, settled = true) => ({
    path: Buffer.from(path),
    ctime,
    settled,
  });

  it('hashes again what changed since, or while git read it; leaves gone files to git', () => {
    const recheck = [entry('same', 5n), entry('moved', 5n), entry('unsettled', 5n, false), entry('gone', 5n)];
    expect(names(hashAgain(recheck, [5n, 6n, 5n, null]))).toEqual(['moved', 'unsettled']);
  });
});
