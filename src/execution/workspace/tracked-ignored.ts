import { splitNul } from '../checkpoints/changed-paths.ts';
import { gitWords, userRepoGit } from './user-git.ts';

/**
 * The files the agent root's clone tracks although its ignore rules match them (added with
 * `git add -f` in the user's repository), which the checkpoints' scan would otherwise never take.
 * Only reads the clone. Paths stay Buffers (any file name round-trips); no clone (its `.git` gone):
 * none, with the reason.
 */
export async function trackedIgnoredFiles(
  agentRoot: string,
): Promise<{ ok: true; value: Buffer[] } | { ok: false; message: string }> {
  const git = userRepoGit({ cwd: agentRoot });
  const listed = await git(['ls-files', '-z', '--cached', '--ignored', '--exclude-standard']);
  if (listed.code !== 0) {
    return { ok: false, message: `cannot list the clone's tracked ignored files: ${gitWords(listed)}` };
  }
  // A conflicted file is listed once per stage; latin1 keys are lossless for any name.
  const unique = new Set(splitNul(listed.stdout).map((path) => path.toString('latin1')));
  return { ok: true, value: [...unique].map((path) => Buffer.from(path, 'latin1')) };
}
