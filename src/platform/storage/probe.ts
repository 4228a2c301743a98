import { closeSync, openSync, rmSync, statfsSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describeFault, faultDetail, faultKindOf, type StorageFaultKind } from './fault.ts';

/** Below this much free space a failed write is put down to a full disk. */
const NEARLY_FULL_BYTES = 1024 * 1024;

/**
 * Looks at the file system holding `path` after a write there failed without saying why (git's
 * "couldn't write ...lock", SQLite's "disk I/O error"): full, or read-only? Never throws. Only for
 * after a failure: it creates (and removes) a file beside `path`.
 */
export function probeStorage(path: string): StorageFaultKind | undefined {
  const dir = existingDir(path);
  try {
    const fs = statfsSync(dir);
    if (fs.bavail * fs.bsize < NEARLY_FULL_BYTES) return 'disk-full';
  } catch {
    // No answer: the error's own words stand.
  }
  // A file made and removed: access(2) misses a file system an error turned read-only (ext4's
  // errors=remount-ro still reads "rw" in its mount flags).
  const probe = join(dir, `.ribosome-write-probe-${process.pid}`);
  try {
    closeSync(openSync(probe, 'w'));
    rmSync(probe, { force: true });
  } catch (error) {
    return faultKindOf(error);
  }
  return undefined;
}

/** The directory `path` is, or the nearest one holding it. */
function existingDir(path: string): string {
  for (let dir = path; ; dir = dirname(dir)) {
    try {
      if (statSync(dir).isDirectory()) return dir;
    } catch {
      // Not there (yet): its parent.
    }
    if (dirname(dir) === dir) return dir;
  }
}

export type Diagnosis = { kind: StorageFaultKind; message: string };

/**
 * Why a write to `path` failed, in words: the error's own kind, sharpened by a look at the file
 * system when the error is vague (SQLite says "disk I/O error" on a read-only disk). Undefined when
 * neither the error nor the file system points at the storage.
 */
export function diagnose(error: unknown, path: string): Diagnosis | undefined {
  const said = faultKindOf(error);
  const seen = said === 'disk-full' || said === 'read-only' ? undefined : probeStorage(path);
  const kind = seen ?? said;
  if (!kind) return undefined;
  const detail = seen && seen !== said ? faultDetail(undefined, seen) : faultDetail(error, kind);
  return { kind, message: describeFault(kind, path, detail) };
}

/**
 * An error in words: a storage problem as "disk full at <path>: ..." (the path the error names, else
 * `path`), anything else by its own message.
 */
export function describeError(error: unknown, path: string): string {
  const named = (error as { path?: unknown } | null)?.path;
  const at = typeof named === 'string' ? named : path;
  return diagnose(error, at)?.message ?? (error instanceof Error ? error.message : String(error));
}
