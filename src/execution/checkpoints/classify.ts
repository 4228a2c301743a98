import type { SkippedFile } from './schema.ts';

/**
 * `unreachable`: a directory on the way to the path is now a symlink, a file, or gone. git cannot reach
 * the path (and must not: a link may lead outside the agent root), so for checkpoints it is gone,
 * whatever lies at the end of the link.
 */
export type PathKind = 'file' | 'symlink' | 'directory' | 'missing' | 'unreachable' | 'other';
export type ObservedPath = {
  path: Buffer;
  tracked: boolean;
  kind: PathKind;
  bytes: number;
  /** Inode change time in nanoseconds, when known (see recheck.ts). */
  ctime?: bigint | null;
};

export type StagePlan = {
  /** For `update-index --add --remove --replace`: added, updated, or dropped when gone. */
  update: Buffer[];
  /**
   * Index entries to drop before `update` runs: tracked files that grew over the cap or became a FIFO,
   * paths now beyond a symlink or a file (update-index refuses them even with `--remove`), and paths now
   * a directory (only the entry of that name goes; the files inside are listed on their own).
   */
  forceRemove: Buffer[];
  skipped: SkippedFile[];
};

/** What a checkpoint does with each changed path, given what is on disk. */
export function planStage(paths: readonly ObservedPath[], maxFileBytes: number): StagePlan {
  const plan: StagePlan = { update: [], forceRemove: [], skipped: [] };
  for (const entry of paths) {
    if (entry.kind === 'file' && entry.bytes > maxFileBytes) {
      plan.skipped.push({ path: entry.path.toString('utf8'), bytes: entry.bytes });
      if (entry.tracked) plan.forceRemove.push(entry.path);
    } else if (entry.tracked && (entry.kind === 'other' || entry.kind === 'unreachable')) {
      // Replaced by a socket or FIFO, which git cannot store, or hidden behind a new symlink or file.
      plan.forceRemove.push(entry.path);
    } else if (entry.tracked && entry.kind === 'directory') {
      // A file or link turned directory; or, after a restore, a path the branch's tip has as a file.
      // update-index refuses a directory name when the index holds files under it.
      plan.forceRemove.push(entry.path);
    } else if (entry.tracked) {
      // Whatever it became (gone, a file, a link), update-index brings the index in line.
      plan.update.push(entry.path);
    } else if (entry.kind === 'file' || entry.kind === 'symlink') {
      plan.update.push(entry.path);
    }
    // Untracked and vanished, or a socket/FIFO git cannot store: nothing to do.
  }
  plan.skipped.sort(byPath);
  return plan;
}

/** Which untracked paths a restore deletes, and which over-cap files it leaves alone. */
export function planClean(
  paths: readonly ObservedPath[],
  maxFileBytes: number,
): { remove: Buffer[]; kept: SkippedFile[] } {
  const remove: Buffer[] = [];
  const kept: SkippedFile[] = [];
  for (const entry of paths) {
    if (entry.kind === 'file' && entry.bytes > maxFileBytes) {
      kept.push({ path: entry.path.toString('utf8'), bytes: entry.bytes });
    } else if (entry.kind === 'file' || entry.kind === 'symlink') {
      remove.push(entry.path);
    }
  }
  return { remove, kept: kept.sort(byPath) };
}

function byPath(a: SkippedFile, b: SkippedFile): number {
  return a.path < b.path ? -1 : a.path > b.path ? 1 : 0;
}
