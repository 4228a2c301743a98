import { existsSync, mkdtempSync, readdirSync, realpathSync, statSync } from 'node:fs';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { confinePath, isInside } from '../../platform/confine/index.ts';
import type { GitRun } from '../checkpoints/git-runner.ts';
import type { CheckpointRecord } from '../checkpoints/index.ts';
import { readWorkspaceRecord, userRepoGit } from '../workspace/index.ts';
import { gitWords, text } from '../workspace/user-git.ts';
import type { ExportRequest, ExportTarget } from './args.ts';
import { type ExportLineage, selectLineage } from './lineage.ts';
import { codonCommitMessage, initialCommitMessage } from './message.ts';
import { ExportError, openShadow, ROOT, type Shadow } from './shadow.ts';
import { worktreeWithBranch } from './worktrees.ts';

/**
 * `ribosome export`: the latest run's completed codons, out of the shadow repository, as a branch
 * of the user's repository, a patch or plain files. Returns the lines to print; throws ExportError.
 */
export async function runExport(request: ExportRequest): Promise<string> {
  if (!existsSync(request.executionDir) || !statSync(request.executionDir).isDirectory()) {
    throw new ExportError(`export: ${request.executionDir} is not a directory`, 2);
  }
  const scratch = mkdtempSync(join(tmpdir(), 'ribosome-export-'));
  try {
    const shadow = openShadow(request.executionDir, scratch);
    if (!shadow) {
      throw new ExportError(`export: ${request.executionDir} has no checkpoints yet: nothing to export`);
    }
    const lineage = selectLineage(await shadow.latestHistory());
    if (!lineage.ok) throw new ExportError(`export: ${lineage.message}`);
    const done = await exportTo(request.target, lineage.value, shadow, request.executionDir, scratch);
    const names = lineage.value.codons.map((c) => c.codonName || c.codonId).join(', ');
    return `exported ${lineage.value.codons.length} codon(s) of run ${lineage.value.runId} (${names}): ${done}`;
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

function exportTo(
  target: ExportTarget,
  lineage: ExportLineage,
  shadow: Shadow,
  executionDir: string,
  scratch: string,
): Promise<string> {
  if (target.kind === 'patch') return toPatch(target.file, lineage, shadow);
  if (target.kind === 'dir') return toDir(target.dir, lineage, executionDir, scratch);
  return toBranch(target, lineage, shadow, executionDir, scratch);
}

/** One diff from the lineage's first checkpoint to its last completed codon. */
async function toPatch(file: string, lineage: ExportLineage, shadow: Shadow): Promise<string> {
  const last = lineage.codons[lineage.codons.length - 1] as CheckpointRecord;
  const patch = await shadow.diff(lineage.base.sha, last.sha);
  await writeFile(file, patch);
  const files = patch.toString('latin1').match(/^diff --git /gm)?.length ?? 0;
  return `patch ${file}, ${files} file(s), ${patch.length} bytes`;
}

/** The last completed codon's tree as plain files in `dir`, which must be empty or absent. */
async function toDir(
  dir: string,
  lineage: ExportLineage,
  executionDir: string,
  scratch: string,
): Promise<string> {
  // Compared as real paths: a link on the way must not lead the files into the execution.
  const real = await confinePath('/', dir);
  if (!real.ok) throw new ExportError(`export: --dir ${dir}: too many levels of symbolic links`, 2);
  if (isInside(realpathSync(executionDir), real.real)) {
    throw new ExportError(
      `export: --dir ${dir} is inside the execution directory ${executionDir} (its agent root, checkpoints and state): choose a directory outside it`,
      2,
    );
  }
  if (existsSync(dir) && (!statSync(dir).isDirectory() || readdirSync(dir).length > 0)) {
    throw new ExportError(`export: --dir ${dir} is not an empty directory`, 2);
  }
  await mkdir(dir, { recursive: true });
  const last = lineage.codons[lineage.codons.length - 1] as CheckpointRecord;
  const shadow = openShadow(executionDir, dir, { GIT_INDEX_FILE: join(scratch, 'dir.index') }) as Shadow;
  for (const args of [
    ['read-tree', last.sha],
    ['checkout-index', '--all', '--force'],
  ]) {
    const out = await shadow.git(args);
    if (out.code !== 0)
      throw new ExportError(`export: cannot write the files (git ${args[0]}): ${gitWords(out)}`);
  }
  const listed = await shadow.git(['ls-files', '-z']);
  const files = listed.stdout.toString('utf8').split('\0').filter(Boolean).length;
  return `${files} file(s) in ${dir}`;
}

/**
 * A branch of the user's repository with one commit per completed codon, each made by applying the
 * codon's diff to the previous commit's tree in a temporary index: the work tree, index, HEAD and
 * other branches of the repository are never touched. The commits carry Ribosome's identity and the
 * checkpoint's time as author and committer date, so an export is reproducible.
 */
async function toBranch(
  target: Extract<ExportTarget, { kind: 'branch' }>,
  lineage: ExportLineage,
  shadow: Shadow,
  executionDir: string,
  scratch: string,
): Promise<string> {
  const workspace = readWorkspaceRecord(executionDir);
  const repo = target.repo ?? workspace?.repo;
  if (repo === undefined) {
    throw new ExportError(
      'export: this execution was not started from a workspace (--workspace); name the repository with --repo PATH',
      2,
    );
  }
  if (!existsSync(repo)) throw new ExportError(`export: the repository ${repo} does not exist`, 2);
  const found = await userRepoGit({ cwd: repo })(['rev-parse', '--absolute-git-dir']);
  if (found.code !== 0)
    throw new ExportError(`export: ${repo} is not a git repository (${gitWords(found)})`, 2);
  const gitDir = text(found);
  const gitWith = (extra: Record<string, string> = {}) =>
    userRepoGit({ cwd: repo, gitDir, env: { GIT_INDEX_FILE: join(scratch, 'branch.index'), ...extra } });
  const git = gitWith();
  const ref = `refs/heads/${target.name}`;
  const existing = await git(['rev-parse', '--verify', '--quiet', ref]);
  if (existing.code === 0 && !target.force) {
    throw new ExportError(`export: ${repo} already has a branch ${target.name}; --force replaces it`, 2);
  }
  // Also when the branch does not exist yet: an unborn branch checked out would be born under its worktree.
  await refuseCheckedOut(git, repo, target.name);

  let parent: string | undefined;
  let commits = 0;
  if (workspace !== undefined) {
    const present = await git(['cat-file', '-e', `${workspace.commit}^{commit}`]);
    if (present.code !== 0) {
      throw new ExportError(
        `export: the workspace commit ${workspace.commit.slice(0, 12)} is not in ${repo}; export to ${workspace.repo}, or use --patch`,
        2,
      );
    }
    parent = workspace.commit;
    await must(git, ['read-tree', parent], 'read the workspace commit');
  } else {
    // No workspace: the branch starts with the starting checkpoint's tree as a root commit.
    await must(git, ['read-tree', '--empty'], 'start an empty index');
    parent = await commitStep(
      gitWith,
      shadow,
      ROOT,
      lineage.base,
      undefined,
      initialCommitMessage(lineage.base),
    );
    commits++;
  }
  let previous = lineage.base;
  for (const codon of lineage.codons) {
    parent = await commitStep(gitWith, shadow, previous.sha, codon, parent, codonCommitMessage(codon));
    previous = codon;
    commits++;
  }
  const update = await git([
    'update-ref',
    '-m',
    'ribosome export',
    ref,
    parent as string,
    // The value checked above: a branch moved meanwhile is not overwritten.
    existing.code === 0 ? text(existing) : '',
  ]);
  if (update.code !== 0) throw new ExportError(`export: cannot create ${target.name}: ${gitWords(update)}`);
  return `branch ${target.name} in ${repo}, ${commits} commit(s), tip ${(parent as string).slice(0, 12)}`;
}

/**
 * A branch checked out in a worktree of the repository (the one given or any linked one) is not
 * replaced, as git refuses `branch -f` on it: that worktree's files and index would no longer match.
 */
async function refuseCheckedOut(git: GitRun, repo: string, name: string): Promise<void> {
  const ref = `refs/heads/${name}`;
  const listed = await git(['worktree', 'list', '--porcelain']);
  if (listed.code !== 0)
    throw new ExportError(`export: cannot list the worktrees of ${repo}: ${gitWords(listed)}`);
  const head = await git(['symbolic-ref', '-q', 'HEAD']);
  const where =
    worktreeWithBranch(listed.stdout.toString('utf8'), ref) ??
    (head.code === 0 && text(head) === ref ? repo : undefined);
  if (where !== undefined) {
    throw new ExportError(
      `export: ${name} is the branch checked out in ${where}; it is not replaced, even with --force (choose another name)`,
      2,
    );
  }
}

/** Applies from..to of the shadow repository to the index and commits the result on `parent`. */
async function commitStep(
  gitWith: (extra?: Record<string, string>) => GitRun,
  shadow: Shadow,
  from: string | typeof ROOT,
  to: CheckpointRecord,
  parent: string | undefined,
  message: string,
): Promise<string> {
  const git = gitWith();
  const patch = await shadow.diff(from, to.sha);
  if (patch.length > 0) {
    const applied = await git(['apply', '--cached', '--binary', '--whitespace=nowarn', '-'], {
      input: patch,
    });
    if (applied.code !== 0) {
      throw new ExportError(
        `export: the changes of ${to.codonId || 'the starting checkpoint'} do not apply: ${gitWords(applied)}`,
      );
    }
  }
  const tree = text(await must(git, ['write-tree'], 'write a tree'));
  // Both dates are the checkpoint's (when the codon's work was done), never the clock's: exporting
  // the same checkpoints again makes the same commits, SHAs included.
  const out = await must(
    gitWith({ GIT_AUTHOR_DATE: to.timestamp, GIT_COMMITTER_DATE: to.timestamp }),
    ['commit-tree', tree, ...(parent ? ['-p', parent] : [])],
    'commit',
    message,
  );
  return text(out);
}

async function must(git: GitRun, args: string[], what: string, input?: string) {
  const out = await git(args, input === undefined ? {} : { input });
  if (out.code !== 0) throw new ExportError(`export: cannot ${what} (git ${args[0]}): ${gitWords(out)}`);
  return out;
}
