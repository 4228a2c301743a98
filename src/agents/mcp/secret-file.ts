import { rmSync, writeFileSync } from 'node:fs';

/**
 * A config file that holds MCP secrets while an agent CLI reads it (each reads its config as it
 * starts): written readable by its owner alone, and once the process has exited rewritten without
 * them (`after`) or removed. A file written again meanwhile (the next turn of a resume chain started
 * before this one's exit was seen) is left to that writer.
 */

/** The latest write of each file: a process's cleanup touches only the file it wrote last. */
const writes = new Map<string, number>();
let count = 0;

/** Writes `text` to `path`, mode 0600; returns the write's number, for `settle`. */
export function writeSecretFile(path: string, text: string): number {
  // Removed first: writeFileSync keeps the mode of a file that is there.
  rmSync(path, { force: true });
  writeFileSync(path, text, { mode: 0o600 });
  const write = ++count;
  writes.set(path, write);
  return write;
}

/**
 * Once `exited` (an agent run's) resolves: `path` rewritten as `after` (removed when undefined), unless
 * written again since `write`.
 */
export function settleOnExit(exited: Promise<unknown>, path: string, write: number, after?: string): void {
  void exited.then(() => {
    if (writes.get(path) !== write) return;
    writes.delete(path);
    try {
      if (after === undefined) rmSync(path, { force: true });
      else writeFileSync(path, after, { mode: 0o600 });
    } catch {
      // The execution's directory went first (a test's temp dir): nothing left to clean.
    }
  });
}
