import type { PathLike } from 'node:fs';
import { describe, expect, it, vi } from 'vitest';
import { buildFileTree } from '../../../src/platform/files/file-tree.ts';
import { pathsOf, tempRoot, write } from './helpers.ts';

// Permissions cannot stop root (the CI user here), so the refusal is simulated: reading any
// directory named `locked` fails as it would without permission.
vi.mock('node:fs/promises', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:fs/promises')>();
  const readdir = async (path: PathLike, options?: unknown) => {
    if (String(path).endsWith('locked')) {
      throw Object.assign(new Error(`EACCES: permission denied, scandir '${String(path)}'`), {
        code: 'EACCES',
      });
    }
    return actual.readdir(path, options as Parameters<typeof actual.readdir>[1]);
  };
  return { ...actual, readdir, default: { ...actual, readdir } };
});

describe('buildFileTree with a directory it cannot read', () => {
  it('shows the directory with no children and carries on', async () => {
    const root = tempRoot();
    write(root, 'locked/secret.txt');
    write(root, 'sub/locked/deeper.txt');
    write(root, 'sub/open.txt');
    write(root, 'open.txt');
    const { tree, truncated } = await buildFileTree(root);
    expect(truncated).toBe(false);
    expect(pathsOf(tree)).toEqual(['locked/', 'sub/', 'sub/locked/', 'sub/open.txt', 'open.txt']);
  });
});
