import { lstat, readdir, rmdir, unlink } from 'node:fs/promises';
import type { ChangedPath } from './changed-paths.ts';
import type { ObservedPath, PathKind } from './classify.ts';

/** File-system work on work-tree-relative paths, kept as Buffers (see changed-paths.ts). */

export const DOT_GIT = Buffer.from('.git');
const SLASH = Buffer.from('/');
// Enough parallel calls to keep libuv's threads busy, few enough not to flood them.
const CONCURRENCY = 32;

export function rootPrefix(workTree: string): Buffer {
  return Buffer.from(workTree.endsWith('/') ? workTree : `${workTree}/`);
}

export function childPath(dir: Buffer, name: Buffer): Buffer {
  return dir.length === 0 || dir[dir.length - 1] === SLASH[0]
    ? Buffer.concat([dir, name])
    : Buffer.concat([dir, SLASH, name]);
}

/**
 * Adds what is on disk now (kind, size) to each path. A tracked path whose directory became a symlink
 * (or a file) is `beyondLink`, never followed. Untracked paths come from git's walk or ours, which do not
 * enter links, so only tracked ones are checked (each directory once).
 */
export async function observe(workTree: string, paths: readonly ChangedPath[]): Promise<ObservedPath[]> {
  const root = rootPrefix(workTree);
  const dirs = new Map<string, Promise<boolean>>();
  const isRealDir = (dir: string): Promise<boolean> => {
    let known = dirs.get(dir);
    if (!known) {
      known = lstat(Buffer.concat([root, Buffer.from(dir, 'latin1')])).then(
        (stats) => stats.isDirectory(),
        () => false,
      );
      dirs.set(dir, known);
    }
    return known;
  };
  return mapLimit(paths, async (entry) => {
    if (entry.tracked && !(await allRealDirs(entry.path, isRealDir))) {
      return { path: entry.path, tracked: true, kind: 'unreachable', bytes: 0 };
    }
    const { kind, bytes, ctime } = await statOf(Buffer.concat([root, entry.path]));
    return { path: entry.path, tracked: entry.tracked, kind, bytes, ctime };
  });
}

/** Whether every directory on the way to `path` (relative) is a real directory, not a link or a file. */
async function allRealDirs(path: Buffer, isRealDir: (dir: string) => Promise<boolean>): Promise<boolean> {
  // latin1: one char per byte, so slicing at '/' is slicing bytes.
  const text = path.toString('latin1');
  for (let slash = text.indexOf('/'); slash > 0; slash = text.indexOf('/', slash + 1)) {
    if (!(await isRealDir(text.slice(0, slash)))) return false;
  }
  return true;
}

/** Deletes the files, then the directories that deleting them left empty (never the work tree itself). */
export async function removeFiles(workTree: string, paths: readonly Buffer[]): Promise<void> {
  const root = rootPrefix(workTree);
  await mapLimit(paths, (path) => unlink(Buffer.concat([root, path])));
  const dirs = new Set<string>();
  for (const path of paths) {
    // latin1: one char per byte, so slicing at '/' is slicing bytes.
    const text = path.toString('latin1');
    for (let slash = text.lastIndexOf('/'); slash > 0; slash = text.lastIndexOf('/', slash - 1)) {
      dirs.add(text.slice(0, slash));
    }
  }
  const deepestFirst = [...dirs].sort((a, b) => b.split('/').length - a.split('/').length);
  for (const dir of deepestFirst) {
    await rmdir(Buffer.concat([root, Buffer.from(dir, 'latin1')])).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'ENOTEMPTY' && error.code !== 'EEXIST' && error.code !== 'ENOENT') throw error;
    });
  }
}

/** Whether a `.git` (directory or file) is anywhere under `dir` (absolute). */
export async function containsGitDir(dir: Buffer): Promise<boolean> {
  const pending = [dir];
  for (let current = pending.pop(); current; current = pending.pop()) {
    for (const entry of await readdir(current, { withFileTypes: true, encoding: 'buffer' })) {
      if (entry.name.equals(DOT_GIT)) return true;
      if (entry.isDirectory()) pending.push(childPath(current, entry.name));
    }
  }
  return false;
}

async function statOf(path: Buffer): Promise<{ kind: PathKind; bytes: number; ctime: bigint | null }> {
  try {
    const stats = await lstat(path, { bigint: true });
    const kind: PathKind = stats.isFile()
      ? 'file'
      : stats.isSymbolicLink()
        ? 'symlink'
        : stats.isDirectory()
          ? 'directory'
          : 'other';
    return { kind, bytes: Number(stats.size), ctime: stats.ctimeNs };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return { kind: 'missing', bytes: 0, ctime: null };
    throw error;
  }
}

export async function mapLimit<T, R>(items: readonly T[], fn: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < items.length; i = next++) results[i] = await fn(items[i]!);
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, items.length) }, worker));
  return results;
}
