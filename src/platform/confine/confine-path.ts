/** The real file system behind `confine`: lstat and readlink, nothing followed. */
import { lstat, readlink, realpath } from 'node:fs/promises';
import { type Confined, type ConfineOptions, confine, type Entry, type Lookup } from './resolve.ts';

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

/**
 * `lookupEntry` remembering its answers: for many paths checked at once (Glob's hits) that share
 * their directories. Only for one short pass over a tree that is not being changed meanwhile.
 */
export function cachedLookup(): Lookup {
  const seen = new Map<string, Promise<Entry>>();
  return (path) => {
    let entry = seen.get(path);
    if (entry === undefined) {
      entry = lookupEntry(path);
      seen.set(path, entry);
    }
    return entry;
  };
}

export type ConfinePathOptions = ConfineOptions & {
  /** [lookup=lookupEntry] How the file system is asked; `cachedLookup()` for many paths at once. */
  lookup?: Lookup;
};

/** `confine` on the real file system. `root` must be a real path (see `realRoot`). */
export function confinePath(root: string, path: string, options: ConfinePathOptions = {}): Promise<Confined> {
  const { lookup = lookupEntry, ...rest } = options;
  return confine(root, path, lookup, rest);
}

/** The real path of a root directory, or the path as given when it does not exist yet. */
export async function realRoot(root: string): Promise<string> {
  return realpath(root).catch(() => root);
}
