import { execFile } from 'node:child_process';
import { mkdirSync, rmdirSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import type { FileNode } from '../../../src/core/protocol/index.ts';
import {
  createFileWatcher,
  type FileUpdate,
  type FileWatcher,
  type FileWatcherOptions,
} from '../../../src/platform/files/index.ts';
import { pathsOf, Recorder, tempRoot, write } from './helpers.ts';

const open: FileWatcher[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((w) => w.close()));
});

/** A started watcher on `root` whose callbacks are recorded. */
async function watchRoot(root: string, options: Partial<FileWatcherOptions> = {}) {
  const files = new Recorder<FileUpdate>();
  const trees = new Recorder<FileNode[]>();
  const watcher = createFileWatcher({
    root,
    onFileUpdated: files.push,
    onTreeUpdated: trees.push,
    ...options,
  });
  open.push(watcher);
  await watcher.ready;
  return { watcher, files, trees };
}

const hasUpdate = (path: string, action: FileUpdate['action']) => (items: readonly FileUpdate[]) =>
  items.some((u) => u.path === path && u.action === action);

describe('createFileWatcher', () => {
  it('builds the tree once at start, without announcing it or reporting existing files', async () => {
    const root = tempRoot();
    write(root, 'src/a.ts', 'a');
    write(root, '.git/HEAD', 'x');
    // A link there before the start (the data directory's link is one) is no news either.
    const outside = tempRoot();
    symlinkSync(outside, join(root, 'ribosome-data'), 'dir');
    const { watcher, files, trees } = await watchRoot(root);
    expect(pathsOf(watcher.tree())).toEqual(['src/', 'src/a.ts', 'ribosome-data']);
    // A later visible change proves the watch is live; nothing earlier was reported.
    write(root, 'b.txt', 'b');
    await files.until(hasUpdate('b.txt', 'created'), 'b.txt created');
    expect(files.items.map((u) => u.path)).toEqual(['b.txt']);
    await trees.until((t) => t.length > 0, 'a tree update');
    expect(pathsOf(watcher.tree())).toEqual(['src/', 'src/a.ts', 'b.txt', 'ribosome-data']);
  });

  it('reports a file created, modified and deleted, in order, with its content', async () => {
    const root = tempRoot();
    const { files } = await watchRoot(root);

    write(root, 'notes/todo.md', '- one\n');
    await files.until(hasUpdate('notes/todo.md', 'created'), 'created');
    writeFileSync(join(root, 'notes/todo.md'), '- one\n- two ✓\n');
    await files.until(hasUpdate('notes/todo.md', 'modified'), 'modified');
    unlinkSync(join(root, 'notes/todo.md'));
    await files.until(hasUpdate('notes/todo.md', 'deleted'), 'deleted');

    expect(files.items).toEqual([
      { path: 'notes/todo.md', filename: 'todo.md', content: '- one\n', action: 'created' },
      { path: 'notes/todo.md', filename: 'todo.md', content: '- one\n- two ✓\n', action: 'modified' },
      { path: 'notes/todo.md', filename: 'todo.md', content: '', action: 'deleted' },
    ]);
  });

  it('reports nothing inside .git, .ribosome or node_modules, at any depth', async () => {
    const root = tempRoot();
    mkdirSync(join(root, '.git'));
    write(root, 'node_modules/zod/package.json', '{}');
    const { files } = await watchRoot(root);

    write(root, '.git/index', 'x');
    write(root, '.ribosome/checkpoints.git/HEAD', 'x');
    write(root, 'vendor/lib/.git/HEAD', 'x');
    write(root, 'node_modules/zod/index.js', 'x');
    write(root, 'node_modules/.bin/zod', 'x');
    write(root, 'visible.txt', 'seen');
    await files.until(hasUpdate('visible.txt', 'created'), 'visible.txt');
    // A second visible write, so anything ignored-but-slower would also have had time to arrive.
    write(root, 'visible2.txt', 'seen');
    await files.until(hasUpdate('visible2.txt', 'created'), 'visible2.txt');

    expect(files.items.map((u) => u.path)).toEqual(['visible.txt', 'visible2.txt']);
  });

  it('gives binary files empty content', async () => {
    const root = tempRoot();
    const { files } = await watchRoot(root);
    write(
      root,
      'logo.png',
      Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d]),
    );
    write(root, 'latin1.txt', Buffer.from('caf\xe9 cr\xe8me', 'latin1'));
    await files.until((u) => u.length >= 2, 'two files');
    expect(files.items).toEqual(
      expect.arrayContaining([
        { path: 'logo.png', filename: 'logo.png', content: '', action: 'created' },
        { path: 'latin1.txt', filename: 'latin1.txt', content: '', action: 'created' },
      ]),
    );
  });

  it('gives files over maxContentBytes empty content, at the default limit and a chosen one', async () => {
    const root = tempRoot();
    const { files } = await watchRoot(root);
    write(root, 'big.log', 'x'.repeat(256 * 1024 + 1));
    write(root, 'fits.log', 'y'.repeat(256 * 1024));
    await files.until((u) => u.length >= 2, 'two files');
    const byPath = new Map(files.items.map((u) => [u.path, u.content]));
    expect(byPath.get('big.log')).toBe('');
    expect(byPath.get('fits.log')).toHaveLength(256 * 1024);

    const small = tempRoot();
    const limited = await watchRoot(small, { maxContentBytes: 10 });
    write(small, 'eleven.txt', '01234567890');
    await limited.files.until(hasUpdate('eleven.txt', 'created'), 'eleven.txt');
    expect(limited.files.items[0]!.content).toBe('');
  });

  it('turns a burst of 50 writes into 50 file events and a few tree updates ending with all of them', async () => {
    const root = tempRoot();
    const { watcher, files, trees } = await watchRoot(root);
    const names = Array.from({ length: 50 }, (_, i) => `gen/file-${String(i).padStart(2, '0')}.txt`);
    mkdirSync(join(root, 'gen'));
    for (const name of names) writeFileSync(join(root, name), name);

    await files.until((u) => u.length >= 50, '50 file events');
    const holdsAll = (tree: FileNode[] | undefined) =>
      tree !== undefined && names.every((n) => pathsOf(tree).includes(n));
    await trees.until((t) => holdsAll(t.at(-1)), 'a tree holding all 50');

    expect(files.items).toHaveLength(50);
    expect(new Set(files.items.map((u) => u.path))).toEqual(new Set(names));
    for (const u of files.items)
      expect(u).toEqual({ path: u.path, filename: u.path.slice(4), content: u.path, action: 'created' });
    expect(trees.items.length).toBeLessThanOrEqual(3);
    expect(holdsAll(watcher.tree())).toBe(true);
  });

  it('sees a file made by a child process', async () => {
    const root = tempRoot();
    const { files } = await watchRoot(root);
    await promisify(execFile)('bash', ['-c', 'echo x > f'], { cwd: root });
    await files.until(hasUpdate('f', 'created'), 'f created');
    expect(files.items).toEqual([{ path: 'f', filename: 'f', content: 'x\n', action: 'created' }]);
  });

  it('refreshes the tree when a directory appears or goes, without file events for it', async () => {
    const root = tempRoot();
    const { watcher, files, trees } = await watchRoot(root);
    mkdirSync(join(root, 'empty'));
    await trees.until((t) => t.some((tree) => pathsOf(tree).includes('empty/')), 'empty/ in a tree');
    expect(pathsOf(watcher.tree())).toEqual(['empty/']);
    rmdirSync(join(root, 'empty'));
    await trees.until((t) => t.at(-1)?.length === 0, 'an empty tree');
    expect(watcher.tree()).toEqual([]);
    expect(files.items).toEqual([]);
  });

  it('reports every file of a removed directory as deleted', async () => {
    const root = tempRoot();
    write(root, 'build/a.js', 'a');
    write(root, 'build/sub/b.js', 'b');
    const { files, trees } = await watchRoot(root);
    rmSync(join(root, 'build'), { recursive: true });
    await files.until((u) => u.length >= 2, 'two deletions');
    expect(files.items.map((u) => `${u.action} ${u.path}`).sort()).toEqual([
      'deleted build/a.js',
      'deleted build/sub/b.js',
    ]);
    await trees.until((t) => t.at(-1)?.length === 0, 'an empty tree');
  });

  it('stops reporting once closed', async () => {
    const root = tempRoot();
    const closedOne = await watchRoot(root);
    const control = await watchRoot(root);
    await closedOne.watcher.close();
    await closedOne.watcher.close();

    write(root, 'after.txt', 'late');
    await control.files.until(hasUpdate('after.txt', 'created'), 'after.txt at the control watcher');
    await control.trees.until((t) => t.length > 0, 'a tree update at the control watcher');

    expect(closedOne.files.items).toEqual([]);
    expect(closedOne.trees.items).toEqual([]);
  });

  it('keeps going when a listener throws or rejects, and logs it', async () => {
    const root = tempRoot();
    const warnings = new Recorder<unknown>();
    const logger = { debug: () => {}, warn: (obj: unknown, _msg?: string) => warnings.push(obj) };
    const seen = new Recorder<string>();
    const watcher = createFileWatcher({
      root,
      logger,
      onFileUpdated: (u) => {
        seen.push(u.path);
        if (u.path === 'throws.txt') throw new Error('listener bug');
        if (u.path === 'rejects.txt') return Promise.reject(new Error('async listener bug'));
      },
      onTreeUpdated: () => {
        throw new Error('tree listener bug');
      },
    });
    open.push(watcher);
    await watcher.ready;
    write(root, 'throws.txt', '1');
    await seen.until((s) => s.includes('throws.txt'), 'throws.txt');
    write(root, 'rejects.txt', '2');
    await seen.until((s) => s.includes('rejects.txt'), 'rejects.txt');
    write(root, 'fine.txt', '3');
    await seen.until((s) => s.includes('fine.txt'), 'fine.txt');
    await warnings.until((w) => w.length >= 3, 'three warnings');
  });

  it('resolves ready even when closed before the watch is live', async () => {
    const watcher = createFileWatcher({ root: tempRoot(), onFileUpdated: () => {}, onTreeUpdated: () => {} });
    await watcher.close();
    await watcher.ready;
    expect(watcher.tree()).toEqual([]);
  });

  it('refuses options that cannot work', () => {
    const base = { root: tempRoot(), onFileUpdated: () => {}, onTreeUpdated: () => {} };
    expect(() => createFileWatcher({ ...base, maxContentBytes: -1 })).toThrow(TypeError);
    expect(() => createFileWatcher({ ...base, treeDebounceMs: 0.5 })).toThrow(TypeError);
    expect(() => createFileWatcher({ ...base, collapsed: ['a/b'] })).toThrow(TypeError);
    expect(() => createFileWatcher({ ...base, root: '' })).toThrow(TypeError);
  });
});
