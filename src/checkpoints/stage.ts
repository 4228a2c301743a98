import { type ChangedPath, joinNul, parseStatus } from './changed-paths.ts';
import { planStage } from './classify.ts';
import { observe } from './disk.ts';
import { fail, ok, type Result } from './errors.ts';
import { type GitRun, gitFailure } from './git-runner.ts';
import { expandOpaqueDirs } from './opaque-dirs.ts';
import type { SkippedFile } from './schema.ts';

export type Staged = { tree: string; skippedLargeFiles: SkippedFile[]; warnings: string[] };

/**
 * Brings the index in line with the work tree and writes its tree. Only what git reports as changed is
 * looked at: the index keeps the stat data of every unchanged file, so nothing is re-hashed and the tree
 * is not walked twice. Files over the cap never reach the object store.
 */
export async function stageWorkTree(
  git: GitRun,
  options: { workTree: string; maxFileBytes: number; include?: readonly Buffer[] },
): Promise<Result<Staged>> {
  const status = await git(['status', '--porcelain', '-z', '--untracked-files=all', '--no-renames']);
  if (status.code !== 0) return gitFailure('scan the agent root (git status)', status);
  const warnings = status.stderr ? status.stderr.split('\n') : [];

  let plan: ReturnType<typeof planStage>;
  try {
    const changed = withIncluded(
      await expandOpaqueDirs(git, options.workTree, parseStatus(status.stdout)),
      options.include ?? [],
    );
    const observed = await observe(options.workTree, changed);
    plan = planStage(observed, options.maxFileBytes);
  } catch (error) {
    return fail('CHECKPOINT_FAILED', `Could not read the agent root: ${(error as Error).message}`);
  }

  // Removals first: an entry beyond a path that became a symlink or a file must be gone before that
  // path is added.
  if (plan.forceRemove.length > 0) {
    const removed = await git(['update-index', '--force-remove', '-z', '--stdin'], {
      input: joinNul(plan.forceRemove),
    });
    if (removed.code !== 0)
      return gitFailure('drop files over the size cap or beyond a symlink (git update-index)', removed);
  }
  if (plan.update.length > 0) {
    const updated = await git(['update-index', '--add', '--remove', '--replace', '-z', '--stdin'], {
      input: joinNul(plan.update),
    });
    if (updated.code !== 0) return gitFailure('record changed files (git update-index)', updated);
  }
  const tree = await git(['write-tree']);
  if (tree.code !== 0) return gitFailure('write the tree (git write-tree)', tree);
  return ok({ tree: tree.stdout.toString('utf8').trim(), skippedLargeFiles: plan.skipped, warnings });
}

/**
 * The changed paths plus the paths to take even if ignored, which git's scan does not report. These
 * count as tracked, so the directories on their way are checked (never followed through a link) and
 * one gone (or replaced by a directory) leaves the index; one unchanged costs a stat, not a hash.
 */
function withIncluded(changed: ChangedPath[], include: readonly Buffer[]): ChangedPath[] {
  if (include.length === 0) return changed;
  // latin1: one char per byte, a lossless key for any file name.
  const listed = new Set(changed.map((entry) => entry.path.toString('latin1')));
  const extra = include
    .filter((path) => !listed.has(path.toString('latin1')))
    .map((path) => ({ path, tracked: true, opaqueDir: false }));
  return [...changed, ...extra];
}
