import { fail, fileFailureWords, ok, type StoreResult } from './errors.ts';
import { tipOf } from './reads.ts';
import { moveRef, readRef } from './ref-file.ts';
import { runBranchName } from './run-branch.ts';

/** Where setAside keeps the checkpoints a run's state never recorded. */
export const ORPHAN_REF_PREFIX = 'refs/orphans/';

/**
 * Moves run `runId`'s branch back to `keepSha`, keeping its old tip reachable on
 * `refs/orphans/<branch>/<tip>`. Returns that ref, or null when the branch already ends at `keepSha`
 * (or does not exist). See CheckpointStore.setAside.
 */
export async function setAsideAfter(
  gitDir: string,
  runId: string,
  keepSha: string,
  durable: boolean,
): Promise<StoreResult<string | null>> {
  const branch = runBranchName(runId);
  if (!branch.ok) return branch;
  const ref = `refs/heads/${branch.value}`;
  const tip = await tipOf(gitDir, ref);
  if (!tip.ok) return tip;
  if (!tip.value || tip.value === keepSha) return ok(null);
  const side = `${ORPHAN_REF_PREFIX}${branch.value}/${tip.value}`;
  const reflog = `recovery: set aside checkpoints after ${keepSha.slice(0, 12)} that were never recorded`;
  try {
    const kept = await readRef(gitDir, side);
    if (kept !== tip.value) await moveRef(gitDir, { ref: side, to: tip.value, from: kept, reflog, durable });
    await moveRef(gitDir, { ref, to: keepSha, from: tip.value, reflog, durable });
  } catch (error) {
    return fail('CHECKPOINT_FAILED', `Could not set aside ${side}: ${fileFailureWords(error)}`);
  }
  return ok(side);
}
