import { lstat } from 'node:fs/promises';
import { mapLimit, rootPrefix } from './disk.ts';

/**
 * git compares a file's stat data with what its index recorded in whole seconds (git is built without
 * USE_NSEC). A file it recorded in second S and rewritten within S, same size, its mtime set back (as
 * `cp -p`, tar, unzip or `touch -r` do), looks unchanged to git from then on, and git's racy-file check
 * (by mtime) does not see it. So the files a checkpoint recorded whose ctime falls in the second the
 * checkpoint started or later are remembered with their ctime in nanoseconds, and the next checkpoint
 * hashes again those whose ctime has moved since (or moved while git was reading them). The common
 * case costs one lstat per such file; the rare one a re-hash.
 */
export type Recheck = { path: Buffer; ctime: bigint; settled: boolean };

/** ctime in nanoseconds of each path (null when gone), never following a link. */
export async function ctimesOf(workTree: string, paths: readonly Buffer[]): Promise<Array<bigint | null>> {
  const root = rootPrefix(workTree);
  return mapLimit(paths, (path) =>
    lstat(Buffer.concat([root, path]), { bigint: true }).then(
      (stats) => stats.ctimeNs,
      () => null,
    ),
  );
}

/**
 * The remembered paths to hash again: those whose ctime moved (`now`: ctimes read after git's scan) or
 * that changed while the last checkpoint read them. Gone ones are left to git, which sees them gone.
 */
export function hashAgain(recheck: readonly Recheck[], now: ReadonlyArray<bigint | null>): Buffer[] {
  return recheck
    .filter((entry, i) => now[i] != null && (!entry.settled || now[i] !== entry.ctime))
    .map((e) => e.path);
}

/**
 * What the next checkpoint must look at again: the candidates (each with its ctime before git read it,
 * null if unknown) whose ctime now is at or after `sinceNs`.
 */
export async function toRecheck(
  workTree: string,
  candidates: ReadonlyArray<{ path: Buffer; before: bigint | null }>,
  sinceNs: bigint,
): Promise<Recheck[]> {
  const now = await ctimesOf(
    workTree,
    candidates.map((c) => c.path),
  );
  const recheck: Recheck[] = [];
  candidates.forEach((candidate, i) => {
    const ctime = now[i];
    if (ctime != null && ctime >= sinceNs)
      recheck.push({ path: candidate.path, ctime, settled: candidate.before === ctime });
  });
  return recheck;
}
