import { mkdir, mkdtemp, rm, symlink, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { changedPaths, describeChange, fingerprintDir } from '../../src/engine/data-fingerprint.ts';

describe('the data directory fingerprint', () => {
  it('changedPaths: added, removed and changed entries, sorted', () => {
    const before = new Map([
      ['a', '1:10'],
      ['b', '2:10'],
      ['d', 'dir'],
    ]);
    const after = new Map([
      ['a', '1:10'],
      ['b', '2:11'],
      ['c', '3:12'],
    ]);
    expect(changedPaths(before, after)).toEqual(['b', 'c', 'd']);
    expect(changedPaths(after, after)).toEqual([]);
  });

  it('describeChange names up to five paths and counts the rest', () => {
    const text = describeChange('/d', 'one', ['1', '2', '3', '4', '5', '6', '7']);
    expect(text).toContain('codon one');
    expect(text).toMatch(/: 1, 2, 3, 4, 5 and 2 more$/);
  });

  it('fingerprintDir walks through the top link, not links below it, and stops at the limit', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'ribosome-print-'));
    try {
      await mkdir(join(dir, 'data/sub'), { recursive: true });
      await writeFile(join(dir, 'data/a.txt'), 'a');
      await writeFile(join(dir, 'data/sub/b.txt'), 'bb');
      await symlink(dir, join(dir, 'data/up'));
      await symlink(join(dir, 'data'), join(dir, 'link'));
      const print = await fingerprintDir(join(dir, 'link'));
      expect([...(print?.keys() ?? [])].sort()).toEqual(['a.txt', 'sub', 'sub/b.txt', 'up']);
      expect(print?.get('sub/b.txt')).toMatch(/^2:/);
      expect((await fingerprintDir(join(dir, 'link'), 2))?.size).toBe(2);
      expect(await fingerprintDir(join(dir, 'missing'))).toBeUndefined();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('fingerprintDir sees a change deep in a tree of more entries than one slice of calls', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'ribosome-print-'));
    try {
      // 3 levels, 1 500 files: the walk yields to the event loop several times on the way.
      for (let i = 0; i < 30; i++) {
        await mkdir(join(dir, `d${i}/deep`), { recursive: true });
        for (let j = 0; j < 25; j++) {
          await writeFile(join(dir, `d${i}/f${j}`), 'x');
          await writeFile(join(dir, `d${i}/deep/g${j}`), 'y');
        }
      }
      const before = await fingerprintDir(dir);
      expect(before?.size).toBe(30 * 2 + 30 * 50);
      // Same size, another mtime; a file added and one removed, both below the top level.
      await utimes(join(dir, 'd29/deep/g24'), new Date(1_000_000), new Date(1_000_000));
      await writeFile(join(dir, 'd7/deep/new'), 'n');
      await rm(join(dir, 'd3/f0'));
      const after = await fingerprintDir(dir);
      expect(changedPaths(before ?? new Map(), after ?? new Map())).toEqual([
        'd29/deep/g24',
        'd3/f0',
        'd7/deep/new',
      ]);
      expect(changedPaths(after ?? new Map(), (await fingerprintDir(dir)) ?? new Map())).toEqual([]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
