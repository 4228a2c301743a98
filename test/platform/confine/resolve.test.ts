import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  type ConfineOptions,
  confine,
  describeRefusal,
  type Entry,
  isInside,
  type Lookup,
} from '../../../src/platform/confine/index.ts';

/** A file system made of a map: `dir`/`file` entries exist, `-> target` entries are symlinks. */
function fakeFs(entries: Record<string, string>): Lookup {
  return async (path) => {
    const value = entries[path];
    if (value === undefined) return { kind: 'missing' };
    if (value.startsWith('-> ')) return { kind: 'link', target: value.slice(3) } satisfies Entry;
    return { kind: 'present' };
  };
}

const ROOT = '/r';
const run = (entries: Record<string, string>, path: string, options?: ConfineOptions) =>
  confine(ROOT, path, fakeFs({ '/r/sub': 'dir', '/r/sub/deep': 'dir', '/out': 'dir', ...entries }), options);

describe('isInside', () => {
  it('compares paths, not prefixes', () => {
    expect(isInside('/a/root', '/a/root')).toBe(true);
    expect(isInside('/a/root', '/a/root/x/y')).toBe(true);
    expect(isInside('/a/root', '/a/root/..foo')).toBe(true);
    expect(isInside('/a/root', '/a/rootother')).toBe(false);
    expect(isInside('/a/root', '/a')).toBe(false);
  });
});

describe('confine', () => {
  it.each([
    ['a missing file', {}, 'a/b.txt', '/r/a/b.txt'],
    ['an absolute path inside', {}, '/r/sub/x', '/r/sub/x'],
    ['`..` that stays inside', {}, 'sub/../y', '/r/y'],
    ['a link to a directory inside', { '/r/alias': '-> sub/deep' }, 'alias/f', '/r/sub/deep/f'],
    ['a chain of links inside', { '/r/a': '-> b', '/r/b': '-> /r/sub' }, 'a/f', '/r/sub/f'],
    ['a dangling link inside', { '/r/new': '-> sub/later.txt' }, 'new', '/r/sub/later.txt'],
    ['a link that leaves and comes back', { '/r/a': '-> /out/b', '/out/b': '-> /r/sub' }, 'a', '/r/sub'],
    // Physical `..`: from where `d` led (/r/sub/deep), two levels up is /r, not / as the text reads.
    ['`..` after a link, taken physically', { '/r/d': '-> sub/deep', '/r/h': '-> d/../../x' }, 'h', '/r/x'],
  ])('accepts %s', async (_, entries, path, real) => {
    expect(await run(entries, path)).toEqual({ ok: true, path: resolve(ROOT, path), real });
  });

  it.each([
    ['`..` out', {}, '../x', { kind: 'outside', path: '../x' }],
    ['an absolute path elsewhere', {}, '/etc/passwd', { kind: 'outside', path: '/etc/passwd' }],
    [
      'a dangling link out (a write would create its target)',
      { '/r/danglink': '-> /out/file' },
      'danglink',
      { kind: 'link-out', link: 'danglink', target: '/out/file' },
    ],
    [
      'a relative link out',
      { '/r/sub/up': '-> ../../out/new.txt' },
      'sub/up',
      { kind: 'link-out', link: 'sub/up', target: '/out/new.txt' },
    ],
    [
      'a symlinked parent directory out, below it missing',
      { '/r/up': '-> /out' },
      'up/new/file.txt',
      { kind: 'link-out', link: 'up', target: '/out' },
    ],
    [
      'a chain whose last link leads out',
      { '/r/a': '-> b', '/r/b': '-> /out/c' },
      'a',
      { kind: 'link-out', link: 'a', target: '/out/c' },
    ],
    [
      '`..` after a link, out physically',
      { '/r/d': '-> sub/deep', '/r/h': '-> d/../../../etc' },
      'h/passwd',
      { kind: 'link-out', link: 'h', target: '/etc' },
    ],
    ['a loop', { '/r/a': '-> b', '/r/b': '-> a' }, 'a/x', { kind: 'link-loop', link: 'a' }],
  ])('refuses %s', async (_, entries, path, refusal) => {
    expect(await run(entries, path)).toEqual({ ok: false, refusal });
  });

  it('without followFinal, resolves the directories but keeps a final link as it is', async () => {
    const links = { '/r/l': '-> /out/f', '/r/up': '-> /out', '/r/in': '-> sub' };
    const keep = { followFinal: false };
    expect(await run(links, 'l', keep)).toEqual({ ok: true, path: '/r/l', real: '/r/l' });
    expect(await run(links, 'in/l', keep)).toEqual({ ok: true, path: '/r/in/l', real: '/r/sub/l' });
    expect(await run(links, 'up/f', keep)).toMatchObject({ ok: false, refusal: { link: 'up' } });
    expect(await run(links, 'l')).toMatchObject({ ok: false, refusal: { link: 'l', target: '/out/f' } });
  });

  it('stops looking once a component is missing', async () => {
    const asked: string[] = [];
    await confine(ROOT, 'a/b/c', async (path) => {
      asked.push(path);
      return { kind: 'missing' };
    });
    expect(asked).toEqual(['/r/a']);
  });
});

describe('describeRefusal', () => {
  it('names the link, where it leads and the root', () => {
    expect(describeRefusal({ kind: 'link-out', link: 'danglink', target: '/out/file' }, '/r')).toBe(
      'refused: danglink is a symlink to /out/file, outside the agent root /r',
    );
    expect(describeRefusal({ kind: 'outside', path: '../x' }, '/a', 'rigArchive')).toBe(
      'refused: ../x is outside rigArchive /a',
    );
    expect(describeRefusal({ kind: 'link-loop', link: 'a' }, '/r')).toContain('too many levels');
  });
});
