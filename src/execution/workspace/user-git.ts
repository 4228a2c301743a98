import { dirname } from 'node:path';
import { gitEnv } from '../checkpoints/git-env.ts';
import { type GitOutput, type GitRun, gitRunner } from '../checkpoints/git-runner.ts';

/**
 * git on a user's repository (a workspace, an export target), with the checkpoints' isolation: no
 * user GIT_* variable, no system or global config, no hooks, the fixed identity. The repository is
 * found from `cwd` alone (nothing above it), or named by `gitDir`. `env` adds variables (an index file).
 */
export function userRepoGit(options: {
  cwd: string;
  gitDir?: string;
  env?: Record<string, string>;
  timeoutMs?: number;
}): GitRun {
  const base = gitEnv({
    gitDir: options.gitDir ?? options.cwd,
    workTree: options.cwd,
    path: process.env.PATH,
    tmpdir: process.env.TMPDIR,
    // The checkpoints' speed settings would leave split-index files in a repository that is not ours.
    extraSettings: [
      ['core.splitIndex', 'false'],
      ['core.untrackedCache', 'false'],
    ],
  });
  const { GIT_DIR: _dir, GIT_WORK_TREE: _tree, ...env } = base;
  if (options.gitDir) env.GIT_DIR = options.gitDir;
  env.GIT_CEILING_DIRECTORIES = dirname(options.cwd);
  return gitRunner({
    env: { ...env, ...options.env },
    cwd: options.cwd,
    timeoutMs: options.timeoutMs ?? 120_000,
  });
}

/** git's own words for a failed command (or why it did not run). */
export function gitWords(output: GitOutput): string {
  return output.spawnError ?? (output.stderr || `exit code ${output.code}`);
}

export const text = (output: GitOutput): string => output.stdout.toString('utf8').trim();
