import { commitBody, gitDate, looseObject, writeLooseObject } from './commit-object.ts';
import { fail, fileFailureWords, ok, type StoreResult } from './errors.ts';
import { type GitRun, gitFailure } from './git-runner.ts';
import { formatCheckpointMessage } from './message.ts';
import { moveRef } from './ref-file.ts';
import type { CheckpointMeta } from './schema.ts';

/** The commit a ref points to, or null when the ref does not exist. */
export async function commitOf(git: GitRun, ref: string): Promise<StoreResult<string | null>> {
  const out = await git(['rev-parse', '-q', '--verify', `${ref}^{commit}`]);
  if (out.code === 0) return ok(out.stdout.toString('utf8').trim());
  if (out.code === 1 && !out.spawnError) return ok(null);
  return gitFailure(`read ${ref}`, out, 'STORE_FAILED');
}

/**
 * Writes a checkpoint commit of `tree` and moves `ref` to it, only if `ref` is still at `parent` (or
 * absent, for a new run: `refExists` false): a checkpoint can never silently replace another. No git
 * runs: see commit-object.ts and ref-file.ts.
 */
export async function commitCheckpoint(args: {
  gitDir: string;
  durable: boolean;
  tree: string;
  parent: string | null;
  meta: CheckpointMeta;
  ref: string;
  refExists: boolean;
}): Promise<StoreResult<string>> {
  const now = new Date();
  const object = looseObject(
    'commit',
    commitBody({
      tree: args.tree,
      parent: args.parent,
      message: formatCheckpointMessage(args.meta),
      date: gitDate(now),
    }),
  );
  try {
    await writeLooseObject(args.gitDir, object, args.durable);
  } catch (error) {
    return fail('CHECKPOINT_FAILED', `Could not write the checkpoint commit: ${fileFailureWords(error)}`);
  }
  try {
    await moveRef(args.gitDir, {
      ref: args.ref,
      to: object.sha,
      from: args.refExists ? args.parent : null,
      reflog: args.meta.initial
        ? `ribosome: initial checkpoint of run ${args.meta.runId}`
        : `ribosome: ${args.meta.checkpointType} ${args.meta.codonId}`,
      durable: args.durable,
      now,
    });
  } catch (error) {
    const detail = fileFailureWords(error);
    return fail(
      'CHECKPOINT_FAILED',
      `Checkpoint commit ${object.sha} was written but ${args.ref} could not be moved to it` +
        `${refMovedMeanwhile(detail) ? ' (it moved meanwhile: another writer?)' : ''}: ${detail}`,
    );
  }
  return ok(object.sha);
}

/**
 * The words (git's, which moveRef keeps) of a lost compare-and-swap: the ref is not where we expected
 * (not a failed write).
 */
export function refMovedMeanwhile(stderr: string): boolean {
  return /but expected|reference already exists/.test(stderr);
}
