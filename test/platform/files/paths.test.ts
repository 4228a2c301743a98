import { join, sep } from 'node:path';
import { describe, expect, it } from 'vitest';
import { baseName, childPath, isExcludedPath, toRelativePath } from '../../../src/platform/files/paths.ts';

const collapsed = new Set(['node_modules']);

describe('toRelativePath', () => {
  const root = join(sep, 'work', 'agentRoot');

  it('gives paths below the root with / separators', () => {
    expect(toRelativePath(root, join(root, 'src', 'a.ts'))).toBe('src/a.ts');
    expect(toRelativePath(root, join(root, 'a.ts'))).toBe('a.ts');
  });

  it('gives the root itself as the empty path', () => {
    expect(toRelativePath(root, root)).toBe('');
    expect(toRelativePath(root, `${root}${sep}`)).toBe('');
  });

  it('refuses paths outside the root, but not names that merely start with dots', () => {
    expect(toRelativePath(root, join(sep, 'work', 'other', 'x'))).toBeUndefined();
    expect(toRelativePath(root, join(sep, 'work'))).toBeUndefined();
    expect(toRelativePath(root, join(sep, 'work', 'agentRootX', 'a'))).toBeUndefined();
    expect(toRelativePath(root, join(root, '..hidden'))).toBe('..hidden');
  });
});

describe('childPath and baseName', () => {
  it('join and split relative paths', () => {
    expect(childPath('', 'a')).toBe('a');
    expect(childPath('a/b', 'c')).toBe('a/b/c');
    expect(baseName('a/b/c.txt')).toBe('c.txt');
    expect(baseName('c.txt')).toBe('c.txt');
  });
});

describe('isExcludedPath', () => {
  it('excludes .git and .ribosome at any depth, and everything inside them', () => {
    for (const p of [
      '.git',
      '.git/HEAD',
      'pkg/.git',
      'pkg/.git/objects/ab',
      '.ribosome',
      '.ribosome/db',
      'a/.ribosome/x',
    ]) {
      expect(isExcludedPath(p, collapsed), p).toBe(true);
    }
  });

  it('keeps a collapsed directory but excludes its insides, at any depth', () => {
    expect(isExcludedPath('node_modules', collapsed)).toBe(false);
    expect(isExcludedPath('web/node_modules', collapsed)).toBe(false);
    expect(isExcludedPath('node_modules/zod/index.js', collapsed)).toBe(true);
    expect(isExcludedPath('web/node_modules/zod', collapsed)).toBe(true);
  });

  it('keeps everything else, including look-alikes', () => {
    for (const p of [
      '',
      'a.txt',
      'src/git',
      '.github/workflows/ci.yml',
      '.gitignore',
      'x.git',
      'node_modules_old/a',
    ]) {
      expect(isExcludedPath(p, collapsed), p).toBe(false);
    }
    expect(isExcludedPath('node_modules/a', new Set())).toBe(false);
  });
});
