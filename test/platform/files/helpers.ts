import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach } from 'vitest';
import type { FileNode } from '../../../src/core/protocol/index.ts';

const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A fresh empty directory, removed after the test. */
export function tempRoot(): string {
  const dir = mkdtempSync(join(tmpdir(), 'ribosome-files-'));
  made.push(dir);
  return dir;
}

/** Writes a file under root, making its parent directories. */
export function write(root: string, path: string, content: string | Uint8Array = ''): void {
  mkdirSync(dirname(join(root, path)), { recursive: true });
  writeFileSync(join(root, path), content);
}

/** Every path in a tree, depth first, directories marked with a trailing '/'. */
export function pathsOf(tree: readonly FileNode[]): string[] {
  return tree.flatMap((n) => [n.isDirectory ? `${n.path}/` : n.path, ...pathsOf(n.children)]);
}

/** Collects what a callback receives, and lets a test wait until what it has satisfies a condition. */
export class Recorder<T> {
  readonly items: T[] = [];
  readonly #waiters = new Set<() => void>();

  readonly push = (item: T): void => {
    this.items.push(item);
    for (const wake of this.#waiters) wake();
  };

  /** Resolves once `done(items)` holds; rejects after `timeoutMs` naming `what` and what was seen. */
  until(done: (items: readonly T[]) => boolean, what: string, timeoutMs = 15_000): Promise<void> {
    if (done(this.items)) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#waiters.delete(check);
        reject(new Error(`timed out waiting for ${what}; saw ${JSON.stringify(this.items).slice(0, 2000)}`));
      }, timeoutMs);
      const check = () => {
        if (!done(this.items)) return;
        clearTimeout(timer);
        this.#waiters.delete(check);
        resolve();
      };
      this.#waiters.add(check);
    });
  }
}
