import { fail, ok, type Result } from './errors.ts';
import { type GitRun, gitFailure } from './git-runner.ts';
import { formatCheckpointMessage } from './message.ts';
import type { CheckpointMeta } from './schema.ts';

const NO_COMMIT = '0000000000000000000000000000000000000000';

/** The commit a ref points to, or null when the ref does not exist. */
export async function commitOf(git: GitRun, ref: string): Promise<Result<string | null>> {
  const out = await git(['rev-parse', '-q', '--verify', `${ref}^{commit}`]);
  if (out.code === 0) return ok(out.stdout.toString('utf8').trim());
  if (out.code === 1 && !out.spawnError) return ok(null);
  return gitFailure(`read ${ref}`, out, 'STORE_FAILED');
}

/**
 * Writes a checkpoint commit of `tree` and moves `ref` to it, only if `ref` is still at `parent` (or
 * absent, for a new run): a checkpoint can never silently replace another.
 */
export async function commitCheckpoint(
  git: GitRun,
  args: { tree: string; parent: string | null; meta: CheckpointMeta; ref: string; refExists: boolean },
): Promise<Result<string>> {
  const parentArgs = args.parent ? ['-p', args.parent] : [];
  const commit = await git(['commit-tree', args.tree, ...parentArgs, '-F', '-'], {
    input: formatCheckpointMessage(args.meta),
  });
  if (commit.code !== 0) return gitFailure('write the checkpoint commit (git commit-tree)', commit);
  const sha = commit.stdout.toString('utf8').trim();
  const expected = args.refExists && args.parent ? args.parent : NO_COMMIT;
  const reflog = `ribosome: ${args.meta.checkpointType} ${args.meta.codonId}`;
  const moved = await git(['update-ref', '-m', reflog, args.ref, sha, expected]);
  if (moved.code !== 0) {
    const detail = moved.stderr || moved.spawnError || `exit code ${moved.code}`;
    return fail(
      'CHECKPOINT_FAILED',
      `Checkpoint commit ${sha} was written but ${args.ref} could not be moved to it` +
        `${refMovedMeanwhile(detail) ? ' (it moved meanwhile: another writer?)' : ''}: ${detail}`,
    );
  }
  return ok(sha);
}

/** git's words when the compare-and-swap lost: the ref is not where we expected (not a failed write). */
export function refMovedMeanwhile(stderr: string): boolean {
  return /but expected|reference already exists/.test(stderr);
}
