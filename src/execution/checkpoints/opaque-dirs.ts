import { readdir } from 'node:fs/promises';
import type { ChangedPath } from './changed-paths.ts';
import { childPath, DOT_GIT, rootPrefix } from './disk.ts';
import type { GitRun } from './git-runner.ts';
import { ignoredAmong } from './ignored.ts';

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
