import { commitOf } from './commits.ts';
import { fail, fileFailureWords, ok, type StoreResult } from './errors.ts';
import { type GitRun, gitFailure } from './git-runner.ts';
import { LOG_FORMAT_ARGS, parseLog } from './history.ts';
import { readRef } from './ref-file.ts';
import { resolveCheckpointSha } from './resolve-sha.ts';
import { RUN_REF_PREFIX, runBranchName, runIdOfBranch } from './run-branch.ts';
import type { CheckpointRecord } from './schema.ts';

/**
 * What the checkpoint store reads from its shadow repository: checkpoints (a run's lineage, every run's,
 * the one a SHA names) and run branches. Nothing here writes; the store queues each call.
 */

export type RunBranch = { runId: string; branch: string; headSha: string };

export const FULL_SHA = /^[0-9a-f]{40}$/;

const runBranchGlob = `${RUN_REF_PREFIX.slice('refs/heads/'.length)}*`;

/** The checkpoints behind run `runId`'s branch, oldest first, with those of the runs it grew from. */
export async function readLineage(git: GitRun, runId: string): Promise<StoreResult<CheckpointRecord[]>> {
  const branch = runBranchName(runId);
  if (!branch.ok) return branch;
  const ref = `refs/heads/${branch.value}`;
  const lineage = await readLog(git, ['--first-parent', ref]);
  if (lineage.ok) return lineage;
  // Only now tell a missing run from a failing git: the common case costs one process.
  const tip = await commitOf(git, ref);
  if (tip.ok && !tip.value) return fail('RUN_NOT_FOUND', `No run ${runId} in the checkpoint store.`);
  return lineage;
}

/** Every checkpoint of every run, each once, oldest first. */
export function readAll(git: GitRun): Promise<StoreResult<CheckpointRecord[]>> {
  return readLog(git, ['--date-order', `--branches=${runBranchGlob}`]);
}

/** The checkpoint a full or abbreviated SHA names, in any run. */
export async function readCheckpoint(
  git: GitRun,
  shaOrPrefix: string,
): Promise<StoreResult<CheckpointRecord>> {
  const sha = shaOrPrefix.trim().toLowerCase();
  if (!FULL_SHA.test(sha)) {
    const all = await readAll(git);
    return all.ok ? resolveCheckpointSha(all.value, sha) : all;
  }
  // A full SHA needs no list: read that one commit.
  const out = await git(['log', '-1', ...LOG_FORMAT_ARGS, sha, '--']);
  const [record] = out.code === 0 ? parseLog(out.stdout) : [];
  if (record) return ok(record);
  return fail('CHECKPOINT_NOT_FOUND', `${sha} is not a checkpoint; list them with checkpoint.list.`);
}

/** The run branches, with their tips. */
export async function readRuns(git: GitRun): Promise<StoreResult<RunBranch[]>> {
  const out = await git([
    'for-each-ref',
    '--sort=committerdate',
    '--format=%(refname)%00%(objectname)',
    RUN_REF_PREFIX,
  ]);
  if (out.code !== 0) return gitFailure('list runs (git for-each-ref)', out, 'STORE_FAILED');
  const runs: RunBranch[] = [];
  for (const line of out.stdout.toString('utf8').split('\n')) {
    const [ref, headSha] = line.split('\0');
    const runId = ref ? runIdOfBranch(ref) : null;
    if (ref && headSha && runId) runs.push({ runId, branch: ref.slice('refs/heads/'.length), headSha });
  }
  return ok(runs);
}

/** The branch of the run started last (`run/<id>`), or null before the first run. */
export async function readCurrentBranch(git: GitRun): Promise<StoreResult<string | null>> {
  const out = await git(['symbolic-ref', '-q', '--short', 'HEAD']);
  if (out.code !== 0 && out.code !== 1) return gitFailure('read the current branch', out, 'STORE_FAILED');
  const branch = out.stdout.toString('utf8').trim();
  return ok(runIdOfBranch(branch) !== null ? branch : null);
}

/** The commit a run branch names, or null: read by the store itself (its loose file or packed-refs). */
export async function tipOf(gitDir: string, ref: string): Promise<StoreResult<string | null>> {
  try {
    return ok(await readRef(gitDir, ref));
  } catch (error) {
    return fail('STORE_FAILED', `Could not read ${ref}: ${fileFailureWords(error)}`);
  }
}

async function readLog(git: GitRun, revisions: string[]): Promise<StoreResult<CheckpointRecord[]>> {
  const out = await git(['log', ...LOG_FORMAT_ARGS, '--reverse', ...revisions, '--']);
  return out.code === 0
    ? ok(parseLog(out.stdout))
    : gitFailure('read checkpoints (git log)', out, 'STORE_FAILED');
}
