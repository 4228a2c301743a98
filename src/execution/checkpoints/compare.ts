import { posix } from 'node:path';
import { parseNumstat } from './diff-stat.ts';
import { fail, ok, type StoreResult } from './errors.ts';
import { type GitRun, gitFailure } from './git-runner.ts';
import { type ParsedDiff, parseUnifiedDiff } from './parse-diff.ts';
import { readCheckpoint } from './reads.ts';
import type { DiffStat } from './schema.ts';

/** What changed between two checkpoints (each a full or abbreviated SHA), as the store reports it. */

export type DiffOptions = {
  path?: string;
  contextLines: number;
  maxBytes: number;
  maxFiles: number;
  maxLines?: number;
};

/** Lines added and deleted per file between two checkpoints. */
export async function diffStatBetween(
  git: GitRun,
  fromSha: string,
  toSha: string,
): Promise<StoreResult<DiffStat>> {
  const from = await readCheckpoint(git, fromSha);
  if (!from.ok) return from;
  const to = await readCheckpoint(git, toSha);
  if (!to.ok) return to;
  const out = await git(['diff-tree', '-r', '-z', '--numstat', '--no-renames', from.value.sha, to.value.sha]);
  return out.code === 0
    ? ok(parseNumstat(out.stdout))
    : gitFailure('compare checkpoints (git diff-tree)', out, 'STORE_FAILED');
}

/**
 * The changes between two checkpoints as files and hunks (renames found), optionally only under
 * `path`. Reads at most `maxBytes` of git's output (then stops git): what is cut is marked truncated,
 * as are files past `maxFiles` and lines past `maxLines`.
 */
export async function diffBetween(
  git: GitRun,
  fromSha: string,
  toSha: string,
  options: DiffOptions,
): Promise<StoreResult<ParsedDiff & { from: string; to: string }>> {
  const pathspec = options.path === undefined ? [] : relativePathspec(options.path);
  if (pathspec === undefined)
    return fail('INVALID_INPUT', `path must lie inside the agent root, got ${options.path}`);
  const from = await readCheckpoint(git, fromSha);
  if (!from.ok) return from;
  const to = await readCheckpoint(git, toSha);
  if (!to.ok) return to;
  const out = await git(
    [
      '-c',
      'core.quotePath=false',
      '--literal-pathspecs',
      'diff-tree',
      '-p',
      '-r',
      '-M',
      '--no-color',
      `-U${options.contextLines}`,
      from.value.sha,
      to.value.sha,
      '--',
      ...pathspec,
    ],
    { maxStdoutBytes: options.maxBytes },
  );
  if (out.code !== 0) return gitFailure('compare checkpoints (git diff-tree -p)', out, 'STORE_FAILED');
  const parsed = parseUnifiedDiff(out.stdout.toString('utf8'), {
    maxFiles: options.maxFiles,
    ...(options.maxLines === undefined ? {} : { maxLines: options.maxLines }),
    cut: out.truncated === true,
  });
  return ok({ from: from.value.sha, to: to.value.sha, ...parsed });
}

/** A path relative to the agent root as one literal pathspec (none for the root), or undefined outside it. */
function relativePathspec(path: string): string[] | undefined {
  const normal = posix
    .normalize(path)
    .replace(/^\.\/+/, '')
    .replace(/\/+$/, '');
  if (normal.startsWith('/') || normal === '..' || normal.startsWith('../')) return undefined;
  return normal === '.' || normal === '' ? [] : [normal];
}
