/**
 * A cheap fingerprint of the data directory (each entry's relative path, size and mtime, bounded),
 * taken before and after each codon: the agent's file tools cannot write there, a shell command can,
 * and a change is reported (DATA_DIR_CHANGED). `changedPaths` is pure; `fingerprintDir` reads the disk.
 */
import type { Dirent } from 'node:fs';
import { lstatSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

/** Entries looked at, at most: a huge data directory is fingerprinted in part, never walked whole. */
export const MAX_FINGERPRINT_ENTRIES = 20_000;

/** Relative path -> "size:mtime" (a directory: "dir"). */
export type Fingerprint = ReadonlyMap<string, string>;

/** Paths added, removed or changed from `before` to `after`, sorted. Pure. */
export function changedPaths(before: Fingerprint, after: Fingerprint): string[] {
  const changed = new Set<string>();
  for (const [path, mark] of after) if (before.get(path) !== mark) changed.add(path);
  for (const path of before.keys()) if (!after.has(path)) changed.add(path);
  return [...changed].sort();
}

/** One line naming up to `shown` of the changed paths. Pure. */
export function describeChange(dir: string, codonId: string, paths: readonly string[], shown = 5): string {
  const named = paths.slice(0, shown).join(', ');
  const more = paths.length > shown ? ` and ${paths.length - shown} more` : '';
  return `the data directory ${dir} changed during codon ${codonId} (a shell command wrote there; the agent's file tools cannot): ${named}${more}`;
}

/** File-system calls between two yields to the event loop: a slice takes a few milliseconds. */
const SLICE = 512;

const byName = (a: Dirent, b: Dirent) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/**
 * The fingerprint of `dir` (a link to it is followed, no link below it is), breadth first, at most
 * `limit` entries; undefined when it cannot be read. The calls are synchronous, in slices with the
 * event loop let through between them: one at a time through the thread pool, a 20 000-entry tree
 * took half a second; this way about a tenth of that, and nothing else waits longer than a slice.
 */
export async function fingerprintDir(
  dir: string,
  limit = MAX_FINGERPRINT_ENTRIES,
): Promise<Fingerprint | undefined> {
  const print = new Map<string, string>();
  const queue: string[] = [''];
  let calls = 0;
  const call = async <T>(fn: () => T): Promise<T> => {
    if (++calls % SLICE === 0) await new Promise((resolve) => setImmediate(resolve));
    return fn();
  };
  for (let i = 0; i < queue.length && print.size < limit; i++) {
    const rel = queue[i] as string;
    let entries: Dirent[];
    try {
      entries = await call(() => readdirSync(join(dir, rel), { withFileTypes: true }));
    } catch {
      if (rel === '') return undefined;
      continue;
    }
    entries.sort(byName);
    for (const entry of entries) {
      if (print.size >= limit) break;
      const path = rel === '' ? entry.name : join(rel, entry.name);
      if (entry.isDirectory()) {
        print.set(path, 'dir');
        queue.push(path);
        continue;
      }
      const info = await call(() => {
        try {
          return lstatSync(join(dir, path), { throwIfNoEntry: false });
        } catch {
          return undefined; // Not ours to read.
        }
      });
      if (info) print.set(path, `${info.size}:${info.mtimeMs}`);
    }
  }
  return print;
}
