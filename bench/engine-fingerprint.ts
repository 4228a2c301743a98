/**
 * The data-directory fingerprint taken at each codon's start and end (src/engine/data-fingerprint.ts),
 * for an empty data directory and one of `entries` entries (directories of 50 files with a
 * subdirectory of 48 more), beside the walk it replaced (one awaited lstat after another, locale
 * sort), run interleaved in the same process: medians over `reps`.
 */
import type { Dirent } from 'node:fs';
import { mkdirSync, writeFileSync } from 'node:fs';
import { lstat, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { fingerprintDir } from '../src/engine/data-fingerprint.ts';
import { tempDir } from '../test/helpers/server-process.ts';
import { median, round } from './stats.ts';

export type FingerprintResult = {
  entries: number;
  reps: number;
  emptyMs: number;
  /** The fingerprint of the big tree, and the one-call-at-a-time walk of the same tree. */
  bigMs: number;
  oneByOneMs: number;
  ratio: number;
};

/** The walk as it was before issue 16, kept here as the baseline. */
async function oneByOne(dir: string, limit: number): Promise<Map<string, string>> {
  const print = new Map<string, string>();
  const queue: string[] = [''];
  for (let i = 0; i < queue.length && print.size < limit; i++) {
    const rel = queue[i] as string;
    let entries: Dirent[];
    try {
      entries = await readdir(join(dir, rel), { withFileTypes: true });
    } catch {
      continue;
    }
    entries.sort((a, b) => a.name.localeCompare(b.name));
    for (const entry of entries) {
      if (print.size >= limit) break;
      const path = rel === '' ? entry.name : join(rel, entry.name);
      if (entry.isDirectory()) {
        print.set(path, 'dir');
        queue.push(path);
        continue;
      }
      const info = await lstat(join(dir, path)).catch(() => undefined);
      if (info) print.set(path, `${info.size}:${info.mtimeMs}`);
    }
  }
  return print;
}

export async function runFingerprint(
  options: { entries?: number; reps?: number } = {},
): Promise<FingerprintResult> {
  const entries = options.entries ?? 20_000;
  const reps = options.reps ?? 5;
  const dir = tempDir('ribosome-bench-fingerprint-');
  try {
    const empty = join(dir.path, 'empty');
    mkdirSync(empty);
    const big = join(dir.path, 'big');
    // 100 entries per top directory: itself, 50 files, `sub` and 48 files in it.
    for (let d = 0; d * 100 < entries; d++) {
      mkdirSync(join(big, `d${d}`, 'sub'), { recursive: true });
      for (let f = 0; f < 98; f++) writeFileSync(join(big, `d${d}`, f < 50 ? `f${f}` : `sub/f${f}`), 'x');
    }
    const timed = async (walk: () => Promise<unknown>) => {
      const t0 = performance.now();
      await walk();
      return performance.now() - t0;
    };
    const times = { empty: [] as number[], big: [] as number[], old: [] as number[] };
    let size = 0;
    for (let r = 0; r < reps; r++) {
      times.empty.push(await timed(() => fingerprintDir(empty)));
      times.big.push(
        await timed(async () => {
          size = (await fingerprintDir(big, entries))?.size ?? 0;
        }),
      );
      times.old.push(await timed(() => oneByOne(big, entries)));
    }
    const bigMs = round(median(times.big));
    const oneByOneMs = round(median(times.old));
    return {
      entries: size,
      reps,
      emptyMs: round(median(times.empty), 3),
      bigMs,
      oneByOneMs,
      ratio: round(bigMs / oneByOneMs),
    };
  } finally {
    dir.remove();
  }
}
