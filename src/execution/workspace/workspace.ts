import { readdirSync, readFileSync, statSync } from 'node:fs';
import { appendFile, mkdir, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { killPoint } from '../../platform/storage/kill-point.ts';
import { DATA_LINK_NAME } from '../layout/data-link.ts';
import { type WorkspaceRecord, writeWorkspaceRecord } from './record.ts';
import type { WorkspaceSpec } from './spec.ts';
import { gitWords, text, userRepoGit } from './user-git.ts';

/** A workspace checked and resolved: what will be cloned. */
export type ResolvedWorkspace = { repo: string; ref: string | null; commit: string; branch: string | null };

/** A mistake in what the user gave (exit 2), said so they can fix it. */
export class WorkspaceError extends Error {}

/**
 * Checks that `spec.path` is a git repository and resolves the ref (default HEAD) to a commit.
 * Only reads the repository.
 */
export async function resolveWorkspace(spec: WorkspaceSpec): Promise<ResolvedWorkspace> {
  let isDir = false;
  try {
    isDir = statSync(spec.path).isDirectory();
  } catch {}
  if (!isDir) throw new WorkspaceError(`workspace: ${spec.path} is not a directory`);
  const git = userRepoGit({ cwd: spec.path });
  const found = await git(['rev-parse', '--absolute-git-dir']);
  if (found.code !== 0) {
    // Only the folder itself is looked at (a ceiling above it); is it a folder inside a repository?
    const around = userRepoGit({ cwd: spec.path, env: { GIT_CEILING_DIRECTORIES: '' } });
    const top = await around(['rev-parse', '--show-toplevel']);
    if (top.code === 0 && text(top) !== '') {
      throw new WorkspaceError(
        `workspace: ${spec.path} is a folder inside the git repository at ${text(top)}; name that top folder`,
      );
    }
    throw new WorkspaceError(
      `workspace: ${spec.path} is not a git repository (git: ${gitWords(found)}); name the repository's top folder`,
    );
  }
  const ref = spec.ref ?? 'HEAD';
  const commit = await git(['rev-parse', '--verify', '--quiet', '--end-of-options', `${ref}^{commit}`]);
  if (commit.code !== 0) {
    throw new WorkspaceError(
      spec.ref === undefined
        ? `workspace: ${spec.path} has no commit yet (HEAD is unborn); commit first, or name a ref with PATH@REF`
        : `workspace: ${spec.path} has no branch, tag or commit "${spec.ref}"`,
    );
  }
  // The data directory's link takes that name in the agent root: a project path there would clash.
  const clash = await git(['ls-tree', '--name-only', text(commit), '--', DATA_LINK_NAME]);
  if (clash.code === 0 && text(clash) !== '') {
    throw new WorkspaceError(
      `workspace: ${spec.path} at ${spec.ref ?? 'HEAD'} has a path named ${DATA_LINK_NAME}, the name Ribosome gives the data directory's link in the agent root; rename it in the repository (or start from a commit without it)`,
    );
  }
  let branch: string | null = null;
  if (spec.ref === undefined) {
    const head = await git(['symbolic-ref', '-q', '--short', 'HEAD']);
    branch = head.code === 0 ? text(head) || null : null;
  } else {
    const local = await git(['rev-parse', '--verify', '--quiet', `refs/heads/${spec.ref}`]);
    branch = local.code === 0 ? spec.ref : null;
  }
  return { repo: spec.path, ref: spec.ref ?? null, commit: text(commit), branch };
}

/**
 * What stands in the agent root besides the data link: a fresh workspace needs it empty. What a clone
 * killed half-way moved there (`internal`'s note of it) does not count: the next clone replaces it.
 */
export function agentRootEntries(agentRoot: string, internal?: string): string[] {
  const leftover = new Set(internal === undefined ? [] : interruptedClone(internal));
  try {
    return readdirSync(agentRoot).filter((name) => name !== DATA_LINK_NAME && !leftover.has(name));
  } catch {
    return [];
  }
}

/** The note a clone keeps while it moves its entries into the agent root: their names. */
const pendingNote = (internal: string) => join(internal, 'workspace-clone.pending');

/** The entries a clone was moving into the agent root when it was killed (none when none was). */
function interruptedClone(internal: string): string[] {
  try {
    const names: unknown = JSON.parse(readFileSync(pendingNote(internal), 'utf8'));
    return Array.isArray(names) ? names.filter((n): n is string => typeof n === 'string') : [];
  } catch {
    return [];
  }
}

/** Takes out of the agent root what a clone killed half-way had moved there, and its note. */
export async function clearInterruptedClone(layout: {
  internal: string;
  agentRoot: string;
}): Promise<string[]> {
  const names = interruptedClone(layout.internal).filter(
    (name) => name !== '' && name !== '.' && name !== '..' && !name.includes('/'),
  );
  for (const name of names) await rm(join(layout.agentRoot, name), { recursive: true, force: true });
  await rm(pendingNote(layout.internal), { force: true });
  return names;
}

/**
 * Makes the agent root a clone of the workspace at its commit and records it. The user's repository
 * is only read: the clone copies its objects (--no-hardlinks, so no file is shared), and loses its
 * `origin` remote so no push from the agent root reaches the user's repository. The clone is made
 * beside the execution's internal files, then moved into the agent root, `.git` included.
 */
export async function cloneWorkspace(
  workspace: ResolvedWorkspace,
  layout: { executionDir: string; internal: string; agentRoot: string },
  now = new Date(),
): Promise<WorkspaceRecord> {
  const tmp = join(layout.internal, 'workspace-clone');
  await rm(tmp, { recursive: true, force: true });
  await mkdir(layout.internal, { recursive: true });
  try {
    await prepareClone(workspace, layout.internal, tmp);
    await mkdir(layout.agentRoot, { recursive: true });
    // All or nothing: a failure half-way takes back what was moved, so the agent root is left as it
    // was (empty) and the next start can clone again.
    const moved: string[] = [];
    try {
      // Noted first: a kill half-way leaves entries that are the clone's, not the user's, and the
      // next start takes them out and clones again (clearInterruptedClone).
      const names = await readdir(tmp);
      await writeFile(pendingNote(layout.internal), JSON.stringify(names));
      for (const name of names) {
        await rename(join(tmp, name), join(layout.agentRoot, name));
        moved.push(name);
        killPoint('workspace-moved');
      }
      const record: WorkspaceRecord = { ...workspace, clonedAt: now.toISOString() };
      await writeWorkspaceRecord(layout.executionDir, record);
      await rm(pendingNote(layout.internal), { force: true });
      return record;
    } catch (error) {
      for (const name of moved) await rm(join(layout.agentRoot, name), { recursive: true, force: true });
      throw error;
    }
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
}

/** Clones the workspace into `tmp` at its commit, without the `origin` remote; throws on failure. */
async function prepareClone(workspace: ResolvedWorkspace, internal: string, tmp: string): Promise<void> {
  const outer = userRepoGit({ cwd: internal });
  const cloned = await outer([
    'clone',
    '--no-hardlinks',
    '--no-checkout',
    '--template=',
    '--quiet',
    '--',
    workspace.repo,
    tmp,
  ]);
  if (cloned.code !== 0) throw new Error(`cannot clone the workspace ${workspace.repo}: ${gitWords(cloned)}`);
  const git = userRepoGit({ cwd: tmp });
  const steps: string[][] = [
    ['remote', 'remove', 'origin'],
    workspace.branch === null
      ? ['checkout', '--quiet', '--detach', workspace.commit]
      : ['checkout', '--quiet', '-B', workspace.branch, workspace.commit],
  ];
  for (const args of steps) {
    const out = await git(args);
    if (out.code !== 0) {
      throw new Error(`cannot prepare the clone of ${workspace.repo} (git ${args[0]}): ${gitWords(out)}`);
    }
  }
  // The data link is Ribosome's, not the project's: the agent's own `git add -A` leaves it out.
  await mkdir(join(tmp, '.git', 'info'), { recursive: true });
  await appendFile(join(tmp, '.git', 'info', 'exclude'), `/${DATA_LINK_NAME}\n`);
}
