import { joinNul, splitNul } from './changed-paths.ts';
import type { GitRun } from './git-runner.ts';

/**
 * Which of `paths` git's ignore rules match (the .gitignore files in the work tree and the store's
 * `excludes`): one `git check-ignore` for all of them. Paths the index holds are never among them, as
 * in git: a file a checkpoint took stays in later ones. Keys are latin1, one char per byte: lossless
 * for any file name. Throws when git fails.
 */
export async function ignoredAmong(git: GitRun, paths: readonly Buffer[]): Promise<Set<string>> {
  if (paths.length === 0) return new Set();
  const result = await git(['check-ignore', '-z', '--stdin'], { input: joinNul(paths) });
  // Exit 1 means "none of them is ignored".
  if (result.code !== 0 && result.code !== 1) {
    throw new Error(
      `git check-ignore failed: ${result.stderr || result.spawnError || `exit ${result.code}`}`,
    );
  }
  return new Set(splitNul(result.stdout).map((p) => p.toString('latin1')));
}

/**
 * The `paths` (relative to the work tree, `/`-separated) checkpoints leave out as ignored: those git's
 * ignore rules match, less the `include` paths every checkpoint takes anyway.
 */
export async function leftOutAmong(
  git: GitRun,
  paths: readonly string[],
  include: readonly Buffer[],
): Promise<Set<string>> {
  const unique = [...new Set(paths)].filter((path) => path !== '');
  const ignored = await ignoredAmong(
    git,
    unique.map((path) => Buffer.from(path)),
  );
  if (ignored.size === 0) return new Set();
  const taken = new Set(include.map((path) => path.toString('latin1')));
  return new Set(
    unique.filter((path) => {
      const key = Buffer.from(path).toString('latin1');
      return ignored.has(key) && !taken.has(key);
    }),
  );
}
