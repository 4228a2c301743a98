import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, symlinkSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FileNode } from '../../../src/core/protocol/index.ts';
import { buildFileTree } from '../../../src/platform/files/file-tree.ts';
import { pathsOf, tempRoot, write } from './helpers.ts';

describe('buildFileTree', () => {
  it('gives the shape of the root: relative / paths, names, directories, lastModified', async () => {
    const root = tempRoot();
    write(root, 'src/lib/util.ts', 'x');
    write(root, 'README.md', '# hi');
    const when = new Date('2024-05-06T07:08:09.000Z');
    utimesSync(join(root, 'README.md'), when, when);

    const { tree, truncated } = await buildFileTree(root);

    expect(truncated).toBe(false);
    for (const node of tree) expect(FileNode.safeParse(node).success).toBe(true);
    expect(tree).toEqual([
      {
        name: 'src',
        path: 'src',
        isDirectory: true,
        lastModified: expect.any(String),
        children: [
          {
            name: 'lib',
            path: 'src/lib',
            isDirectory: true,
            lastModified: expect.any(String),
            children: [
              {
                name: 'util.ts',
                path: 'src/lib/util.ts',
                isDirectory: false,
                children: [],
                lastModified: expect.any(String),
              },
            ],
          },
        ],
      },
      {
        name: 'README.md',
        path: 'README.md',
        isDirectory: false,
        children: [],
        lastModified: when.toISOString(),
      },
    ]);
    expect(new Date(tree[0]!.lastModified!).toISOString()).toBe(tree[0]!.lastModified);
  });

  it('orders directories first, then names by code unit', async () => {
    const root = tempRoot();
    for (const name of ['b.txt', 'B.txt', 'a.txt', '_x', '10', '9']) write(root, name);
    for (const name of ['zdir', 'Adir']) mkdirSync(join(root, name));
    const { tree } = await buildFileTree(root);
    expect(tree.map((n) => n.name)).toEqual(['Adir', 'zdir', '10', '9', 'B.txt', '_x', 'a.txt', 'b.txt']);
  });

  it('never shows .git or .ribosome, at any depth', async () => {
    const root = tempRoot();
    write(root, '.git/HEAD', 'ref: refs/heads/main');
    write(root, '.ribosome/state.db', '');
    write(root, 'vendor/lib/.git/config', '');
    write(root, 'vendor/lib/.ribosome/x', '');
    write(root, 'vendor/lib/index.js', '');
    write(root, '.gitignore', 'dist');
    const { tree } = await buildFileTree(root);
    expect(pathsOf(tree)).toEqual(['vendor/', 'vendor/lib/', 'vendor/lib/index.js', '.gitignore']);
  });

  it('shows node_modules as a node with no children, at any depth, without entering it', async () => {
    const root = tempRoot();
    for (let i = 0; i < 20; i++) write(root, `node_modules/pkg${i}/index.js`);
    write(root, 'web/node_modules/react/index.js');
    write(root, 'web/app.ts');
    const { tree, truncated } = await buildFileTree(root, { maxEntries: 10 });
    expect(truncated).toBe(false);
    expect(pathsOf(tree)).toEqual(['node_modules/', 'web/', 'web/node_modules/', 'web/app.ts']);
    expect(tree[0]!.children).toEqual([]);
  });

  it('collapses the names it is given instead', async () => {
    const root = tempRoot();
    write(root, 'node_modules/a/index.js');
    write(root, 'dist/bundle.js');
    const { tree } = await buildFileTree(root, { collapsed: ['dist'] });
    expect(pathsOf(tree)).toEqual(['dist/', 'node_modules/', 'node_modules/a/', 'node_modules/a/index.js']);
  });

  it('stops at maxEntries, keeping the top levels first, and says so', async () => {
    const root = tempRoot();
    write(root, 'a/deep/1.txt');
    write(root, 'a/deep/2.txt');
    write(root, 'b/x.txt');
    write(root, 'top1.txt');
    write(root, 'top2.txt');
    // Breadth first: a, b, top1, top2 | a/deep, b/x.txt | a/deep/1.txt, a/deep/2.txt
    const cut = await buildFileTree(root, { maxEntries: 5 });
    expect(cut.truncated).toBe(true);
    expect(pathsOf(cut.tree)).toEqual(['a/', 'a/deep/', 'b/', 'top1.txt', 'top2.txt']);

    const exact = await buildFileTree(root, { maxEntries: 8 });
    expect(exact.truncated).toBe(false);
    expect(pathsOf(exact.tree)).toHaveLength(8);

    expect(await buildFileTree(root, { maxEntries: 0 })).toEqual({ tree: [], truncated: true });
  });

  it('bounds a big tree by the default limit of 5000', async () => {
    const root = tempRoot();
    // 5 directories of 1000 files: 5005 nodes. `touch` makes them several times faster than Node here.
    execFileSync('bash', ['-c', 'for d in 1 2 3 4 5; do mkdir d$d && (cd d$d && touch f{1..1000}); done'], {
      cwd: root,
    });
    const { tree, truncated } = await buildFileTree(root);
    expect(truncated).toBe(true);
    expect(pathsOf(tree)).toHaveLength(5000);
  });

  it('shows symlinks as leaves and does not follow them', async () => {
    const root = tempRoot();
    write(root, 'real/inside.txt');
    symlinkSync(join(root, 'real'), join(root, 'dirlink'));
    symlinkSync(root, join(root, 'loop'));
    symlinkSync(join(root, 'missing'), join(root, 'dangling'));
    const { tree } = await buildFileTree(root);
    expect(pathsOf(tree)).toEqual(['real/', 'real/inside.txt', 'dangling', 'dirlink', 'loop']);
    expect(tree.find((n) => n.name === 'dirlink')).toMatchObject({ isDirectory: false, children: [] });
  });

  it.skipIf(process.getuid?.() === 0)('skips a directory it cannot read instead of failing', async () => {
    const root = tempRoot();
    write(root, 'locked/secret.txt');
    write(root, 'open.txt');
    chmodSync(join(root, 'locked'), 0o000);
    try {
      const { tree } = await buildFileTree(root);
      expect(pathsOf(tree)).toEqual(['locked/', 'open.txt']);
    } finally {
      chmodSync(join(root, 'locked'), 0o755);
    }
  });

  it('gives an empty tree for a root that is gone', async () => {
    expect(await buildFileTree(join(tempRoot(), 'missing'))).toEqual({ tree: [], truncated: false });
  });

  it('refuses a maxEntries that cannot work', async () => {
    await expect(buildFileTree(tempRoot(), { maxEntries: -1 })).rejects.toThrow(TypeError);
    await expect(buildFileTree(tempRoot(), { maxEntries: 1.5 })).rejects.toThrow(TypeError);
  });
});
