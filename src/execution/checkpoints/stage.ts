import { type ChangedPath, joinNul, parseStatus } from './changed-paths.ts';
import { type ObservedPath, planStage } from './classify.ts';
import { observe } from './disk.ts';
import { fail, ok, type StoreResult } from './errors.ts';
import { type GitRun, gitFailure } from './git-runner.ts';
import { expandOpaqueDirs } from './opaque-dirs.ts';
import { ctimesOf, hashAgain, type Recheck, toRecheck } from './recheck.ts';
import type { SkippedFile } from './schema.ts';
import { PACK_SETTINGS, updateBatches } from './update-batches.ts';

export type Staged = {
  tree: string;
  skippedLargeFiles: SkippedFile[];
  warnings: string[];
  /** Files to look at again at the next checkpoint, whatever git says (see recheck.ts). */
  recheck: Recheck[];
};

/**
 * Brings the index in line with the work tree and writes its tree. Only what git reports as changed is
 * looked at: the index keeps the stat data of every unchanged file, so nothing is re-hashed and the tree
 * is not walked twice. Files over the cap never reach the object store.
 */
export async function stageWorkTree(
  git: GitRun,
  options: {
    workTree: string;
    maxFileBytes: number;
    include?: readonly Buffer[];
    /** The previous checkpoint's Staged.recheck. */
    recheck?: readonly Recheck[];
    /** Whether many new objects may go into packs (git 2.37+; see update-batches.ts). */
    packs?: boolean;
    /**
     * The tree the index held when the last checkpoint wrote it, if known (the store is the index's
     * only writer): when nothing is to be updated it is the tree again, and write-tree need not run.
     */
    indexTree?: string | undefined;
  },
): Promise<StoreResult<Staged>> {
  // The start of this second, in nanoseconds: git compares stat times in whole seconds.
  const since = BigInt(Math.floor(Date.now() / 1000)) * 1_000_000_000n;
  const status = await git(['status', '--porcelain', '-z', '--untracked-files=all', '--no-renames']);
  if (status.code !== 0) return gitFailure('scan the agent root (git status)', status);
  const warnings = status.stderr ? status.stderr.split('\n') : [];
  const recheck = options.recheck ?? [];
  // Read after git's scan: a change after it is seen by the next one.
  const recheckNow = await ctimesOf(
    options.workTree,
    recheck.map((entry) => entry.path),
  );
  const again = hashAgain(recheck, recheckNow);

  let plan: ReturnType<typeof planStage>;
  let observed: ObservedPath[];
  let reported: Set<string>;
  try {
    const scanned = await expandOpaqueDirs(git, options.workTree, parseStatus(status.stdout));
    reported = new Set(scanned.map((entry) => entry.path.toString('latin1')));
    const changed = withIncluded(scanned, [...(options.include ?? []), ...again]);
    observed = await observe(options.workTree, changed);
    plan = planStage(observed, options.maxFileBytes);
  } catch (error) {
    return fail('CHECKPOINT_FAILED', `Could not read the agent root: ${(error as Error).message}`);
  }

  // update-index skips a file whose stat data matches its entry: one to hash again leaves the index
  // first (unless git's scan reported it, so its stat data differs anyway).
  const unseen = new Set(again.map((path) => path.toString('latin1')).filter((key) => !reported.has(key)));
  const forceRemove = [...plan.forceRemove, ...plan.update.filter((p) => unseen.has(p.toString('latin1')))];
  // Removals first: an entry beyond a path that became a symlink or a file must be gone before that
  // path is added.
  if (forceRemove.length > 0) {
    const removed = await git(['update-index', '--force-remove', '-z', '--stdin'], {
      input: joinNul(forceRemove),
    });
    if (removed.code !== 0)
      return gitFailure('drop files over the size cap or beyond a symlink (git update-index)', removed);
  }
  // latin1: one char per byte, a lossless key for any file name.
  const packable = new Set(
    observed.filter((e) => e.kind === 'file' && e.bytes > 1).map((e) => e.path.toString('latin1')),
  );
  const batches = updateBatches(
    plan.update,
    (path) => packable.has(path.toString('latin1')),
    options.packs === true,
  );
  for (const batch of batches) {
    const input = joinNul(batch.paths);
    let updated = await git(batch.pack ? [...PACK_SETTINGS, ...UPDATE] : UPDATE, { input });
    // A file changed between our look and git's (now a link or 1 byte: a loose object first), a pack
    // that cannot be written: the call changed nothing, so do it again writing loose objects.
    if (updated.code !== 0 && batch.pack) updated = await git(UPDATE, { input });
    if (updated.code !== 0) return gitFailure('record changed files (git update-index)', updated);
  }
  let tree = forceRemove.length === 0 && batches.length === 0 ? options.indexTree : undefined;
  if (tree === undefined) {
    const written = await git(['write-tree']);
    if (written.code !== 0) return gitFailure('write the tree (git write-tree)', written);
    tree = written.stdout.toString('utf8').trim();
  }
  return ok({
    tree,
    skippedLargeFiles: plan.skipped,
    warnings,
    recheck: await toRecheck(
      options.workTree,
      recheckCandidates(observed, plan.update, recheck, recheckNow),
      since,
    ),
  });
}

const UPDATE = ['update-index', '--add', '--remove', '--replace', '-z', '--stdin'];

/**
 * The changed paths plus the paths to take even if ignored, which git's scan does not report, and those
 * to look at again (recheck). These count as tracked, so the directories on their way are checked (never followed through a link) and
 * one gone (or replaced by a directory) leaves the index; one unchanged costs a stat, not a hash.
 */
function withIncluded(changed: ChangedPath[], include: readonly Buffer[]): ChangedPath[] {
  if (include.length === 0) return changed;
  // latin1: one char per byte, a lossless key for any file name.
  const listed = new Set(changed.map((entry) => entry.path.toString('latin1')));
  const extra: ChangedPath[] = [];
  for (const path of include) {
    const key = path.toString('latin1');
    if (listed.has(key)) continue;
    listed.add(key);
    extra.push({ path, tracked: true, opaqueDir: false });
  }
  return [...changed, ...extra];
}

/**
 * The files this checkpoint recorded, with their ctime before git read them, and the remembered ones it
 * did not record again (git still holds what it read before; their ctime then is the one read after
 * the scan).
 */
function recheckCandidates(
  observed: readonly ObservedPath[],
  updated: readonly Buffer[],
  recheck: readonly Recheck[],
  recheckNow: ReadonlyArray<bigint | null>,
): Array<{ path: Buffer; before: bigint | null }> {
  const ctimes = new Map(observed.map((entry) => [entry.path.toString('latin1'), entry.ctime ?? null]));
  const candidates = updated.map((path) => ({ path, before: ctimes.get(path.toString('latin1')) ?? null }));
  const done = new Set(updated.map((path) => path.toString('latin1')));
  recheck.forEach((entry, i) => {
    if (!done.has(entry.path.toString('latin1')))
      candidates.push({
        path: entry.path,
        before: entry.settled && recheckNow[i] === entry.ctime ? entry.ctime : null,
      });
  });
  return candidates;
}
