/** The real file system behind `confine`: lstat and readlink, nothing followed. */
import { lstat, readlink, realpath } from 'node:fs/promises';
import { type Confined, type ConfineOptions, confine, type Entry } from './resolve.ts';

export async function lookupEntry(path: string): Promise<Entry> {
  try {
    const info = await lstat(path);
    return info.isSymbolicLink() ? { kind: 'link', target: await readlink(path) } : { kind: 'present' };
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    // ENOTDIR: a file stands where a directory would be; nothing lies below it.
    if (code === 'ENOENT' || code === 'ENOTDIR') return { kind: 'missing' };
    throw err;
  }
}

/** `confine` on the real file system. `root` must be a real path (see `realRoot`). */
export function confinePath(root: string, path: string, options: ConfineOptions = {}): Promise<Confined> {
  return confine(root, path, lookupEntry, options);
}

/** The real path of a root directory, or the path as given when it does not exist yet. */
export async function realRoot(root: string): Promise<string> {
  return realpath(root).catch(() => root);
}
