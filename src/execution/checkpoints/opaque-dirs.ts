import { readdir } from 'node:fs/promises';
import { type ChangedPath, joinNul, splitNul } from './changed-paths.ts';
import { childPath, DOT_GIT, rootPrefix } from './disk.ts';
import type { GitRun } from './git-runner.ts';

/** The paths with each opaque directory replaced by its files (all of them untracked). */
export async function expandOpaqueDirs(
  git: GitRun,
  workTree: string,
  paths: readonly ChangedPath[],
): Promise<ChangedPath[]> {
  const expanded: ChangedPath[] = [];
  for (const entry of paths) {
    if (!entry.opaqueDir) expanded.push(entry);
    else
      for (const path of await listOpaqueDir(git, workTree, entry.path))
        expanded.push({ path, tracked: false, opaqueDir: false });
  }
  return expanded;
}

/**
 * The files of a directory git lists as a whole and will not enter: a nested repository (its own
 * `.git`). Its files belong in checkpoints like any others, its `.git` never. Once one of its files is
 * in the index git walks the directory itself, so this runs once per nested repository (or on each
 * scan of one with no file to take). Walked level by level, each level filtered by `git check-ignore`,
 * so ignored directories (a nested node_modules) are never entered.
 */
export async function listOpaqueDir(git: GitRun, workTree: string, dir: Buffer): Promise<Buffer[]> {
  const root = rootPrefix(workTree);
  const files: Buffer[] = [];
  let level: Buffer[] = [dir];
  while (level.length > 0) {
    const entries: Array<{ path: Buffer; isDir: boolean }> = [];
    for (const current of level) {
      const found = await readdir(Buffer.concat([root, current]), {
        withFileTypes: true,
        encoding: 'buffer',
      });
      for (const entry of found) {
        if (entry.name.equals(DOT_GIT)) continue;
        const path = childPath(current, entry.name);
        if (entry.isDirectory()) entries.push({ path, isDir: true });
        else if (entry.isFile() || entry.isSymbolicLink()) entries.push({ path, isDir: false });
      }
    }
    const ignored = await ignoredAmong(
      git,
      entries.map((e) => e.path),
    );
    level = [];
    for (const entry of entries) {
      if (ignored.has(entry.path.toString('latin1'))) continue;
      if (entry.isDir) level.push(entry.path);
      else files.push(entry.path);
    }
  }
  return files;
}

async function ignoredAmong(git: GitRun, paths: Buffer[]): Promise<Set<string>> {
  if (paths.length === 0) return new Set();
  const result = await git(['check-ignore', '-z', '--stdin'], { input: joinNul(paths) });
  // Exit 1 means "none of them is ignored".
  if (result.code !== 0 && result.code !== 1) {
    throw new Error(
      `git check-ignore failed: ${result.stderr || result.spawnError || `exit ${result.code}`}`,
    );
  }
  // latin1 maps bytes to chars one to one: a lossless key for any file name.
  return new Set(splitNul(result.stdout).map((p) => p.toString('latin1')));
}
