import { dirname } from 'node:path';

/**
 * The environment of every git the store runs. It is built from nothing rather than filtered from
 * process.env, so none of the user's GIT_* variables (GIT_DIR, GIT_INDEX_FILE, GIT_OBJECT_DIRECTORY...),
 * config files or hooks can reach the shadow repository. Settings travel as GIT_CONFIG_COUNT pairs:
 * they win over any config file and cannot go stale on disk.
 */

export const IDENTITY = { name: 'Ribosome', email: 'checkpoints@ribosome.invalid' } as const;

const SETTINGS: ReadonlyArray<readonly [string, string]> = [
  ['core.bare', 'false'],
  ['core.autocrlf', 'false'],
  ['core.safecrlf', 'false'],
  ['core.symlinks', 'true'],
  ['core.quotePath', 'false'],
  ['core.hooksPath', '/dev/null'],
  ['core.excludesFile', '/dev/null'],
  ['core.attributesFile', '/dev/null'],
  ['core.fsmonitor', 'false'],
  ['core.logAllRefUpdates', 'true'],
  // Remembers which directories had no new files, so the scan of a large tree reads few of them.
  ['core.untrackedCache', 'true'],
  // Each index write then holds only the changed entries, not all 20 000; unused shared indexes go.
  ['core.splitIndex', 'true'],
  ['splitIndex.sharedIndexExpire', 'now'],
  ['status.showUntrackedFiles', 'all'],
  ['status.renames', 'false'],
  ['diff.renames', 'false'],
  ['commit.gpgSign', 'false'],
  ['gc.auto', '0'],
  ['maintenance.auto', 'false'],
  ['submodule.recurse', 'false'],
  ['init.defaultBranch', 'ribosome'],
  ['advice.detachedHead', 'false'],
  ['safe.directory', '*'],
];

export type GitEnvOptions = {
  gitDir: string;
  workTree: string;
  /** Taken from process.env when present; nothing else is. */
  path: string | undefined;
  tmpdir?: string | undefined;
  /** Extra settings (e.g. durability) after ours. */
  extraSettings?: ReadonlyArray<readonly [string, string]>;
};

export function gitEnv(options: GitEnvOptions): Record<string, string> {
  const settings = [...SETTINGS, ...(options.extraSettings ?? [])];
  const env: Record<string, string> = {
    GIT_DIR: options.gitDir,
    GIT_WORK_TREE: options.workTree,
    GIT_CEILING_DIRECTORIES: [dirname(options.workTree), dirname(options.gitDir)].join(':'),
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_TERMINAL_PROMPT: '0',
    GIT_NO_REPLACE_OBJECTS: '1',
    GIT_AUTHOR_NAME: IDENTITY.name,
    GIT_AUTHOR_EMAIL: IDENTITY.email,
    GIT_COMMITTER_NAME: IDENTITY.name,
    GIT_COMMITTER_EMAIL: IDENTITY.email,
    // HOME only locates config files; point it where none will be.
    HOME: options.gitDir,
    LC_ALL: 'C',
    GIT_CONFIG_COUNT: String(settings.length),
  };
  settings.forEach(([key, value], i) => {
    env[`GIT_CONFIG_KEY_${i}`] = key;
    env[`GIT_CONFIG_VALUE_${i}`] = value;
  });
  if (options.path !== undefined) env.PATH = options.path;
  if (options.tmpdir !== undefined) env.TMPDIR = options.tmpdir;
  return env;
}
