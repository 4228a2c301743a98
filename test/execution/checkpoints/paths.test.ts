import { describe, expect, it } from 'vitest';
import {
  joinNul,
  parseNameStatus,
  parseStatus,
  parseUntracked,
  splitNul,
} from '../../../src/execution/checkpoints/changed-paths.ts';
import { parseNumstat } from '../../../src/execution/checkpoints/diff-stat.ts';
import { anchoredPattern, infoExclude } from '../../../src/execution/checkpoints/repo-files.ts';

const z = (...parts: string[]) => Buffer.from(`${parts.join('\0')}\0`);
const text = (entries: Array<{ path: Buffer }>) => entries.map((e) => e.path.toString('utf8'));

describe('NUL lists', () => {
  it('splits and joins', () => {
    expect(splitNul(z('a', 'b c', 'd/e')).map(String)).toEqual(['a', 'b c', 'd/e']);
    expect(splitNul(Buffer.from('a\0b')).map(String)).toEqual(['a', 'b']);
    expect(splitNul(Buffer.alloc(0))).toEqual([]);
    expect(joinNul([Buffer.from('x'), Buffer.from('y')])).toEqual(z('x', 'y'));
  });

  it('keeps bytes that are not UTF-8', () => {
    const raw = Buffer.from([0x66, 0xff, 0xfe]);
    const [path] = splitNul(Buffer.concat([raw, Buffer.of(0)]));
    expect(path).toEqual(raw);
  });
});

describe('parseStatus', () => {
  it('tells tracked, new and opaque paths apart', () => {
    const entries = parseStatus(
      z(' M src/a.ts', ' D gone.txt', 'A  staged', '?? new file.txt', '?? nested/', 'MM both'),
    );
    expect(text(entries)).toEqual(['src/a.ts', 'gone.txt', 'staged', 'new file.txt', 'nested/', 'both']);
    expect(entries.map((e) => e.tracked)).toEqual([true, true, true, false, false, true]);
    expect(entries.map((e) => e.opaqueDir)).toEqual([false, false, false, false, true, false]);
  });

  it('reads untracked lists', () => {
    const entries = parseUntracked(z('a', 'repo/'));
    expect(entries).toEqual([
      { path: Buffer.from('a'), tracked: false, opaqueDir: false },
      { path: Buffer.from('repo/'), tracked: false, opaqueDir: true },
    ]);
  });

  it('reads name-status pairs', () => {
    const entries = parseNameStatus(z('A', 'new', 'D', 'old file', 'M', 'x'));
    expect(entries.map((e) => `${e.status} ${e.path}`)).toEqual(['A new', 'D old file', 'M x']);
  });
});

describe('parseNumstat', () => {
  it('sums text files and marks binary ones', () => {
    const stat = parseNumstat(z('3\t1\tsrc/a.ts', '-\t-\timage.png', '0\t7\tdir/with\ttab'));
    expect(stat).toEqual({
      files: [
        { path: 'src/a.ts', added: 3, deleted: 1 },
        { path: 'image.png', added: null, deleted: null },
        { path: 'dir/with\ttab', added: 0, deleted: 7 },
      ],
      added: 3,
      deleted: 8,
    });
  });
});

describe('exclude patterns', () => {
  it.each([
    ['plain/path', '/plain/path'],
    ['with space', '/with\\ space'],
    ['star*and?[x]', '/star\\*and\\?\\[x]'],
    ['#hash', '/\\#hash'],
    ['!bang', '/\\!bang'],
    ['back\\slash', '/back\\\\slash'],
    ['trailing ', '/trailing\\ '],
  ])('anchors %j', (path, pattern) => {
    expect(anchoredPattern(path)).toBe(pattern);
  });

  it('cannot express a line break', () => {
    expect(anchoredPattern('a\nb')).toBeNull();
  });

  it('excludes a store kept inside its work tree, and only then', () => {
    expect(infoExclude({ gitDir: '/x/root/.state/cp.git', workTree: '/x/root', excludes: ['*.tmp'] })).toBe(
      '# Written by ribosome on every open; edit the store options instead.\n/.state/cp.git/\n*.tmp\n',
    );
    expect(infoExclude({ gitDir: '/x/.ribosome/cp.git', workTree: '/x/root', excludes: [] })).not.toContain(
      'cp.git',
    );
  });
});
