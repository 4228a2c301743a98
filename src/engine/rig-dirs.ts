import { rm } from 'node:fs/promises';
import { z } from 'zod';
import { confinePath, describeRefusal, realRoot } from '../platform/confine/index.ts';
import { JsonListFile } from './json-list-file.ts';

export const RigDirsEntry = z.object({
  runId: z.string(),
  codonId: z.string(),
  /** The codon's rig-setup checkpoint: a rollback to before it removes these directories. */
  sha: z.string(),
  directories: z.array(z.string()),
});
export type RigDirsEntry = z.infer<typeof RigDirsEntry>;

/** `.ribosome/rig-dirs.json`: directories rig setup created, per codon, for rollback cleanup. */
export class RigDirsLog extends JsonListFile<RigDirsEntry> {
  constructor(file: string) {
    super(file, RigDirsEntry);
  }
}

/**
 * Removes directories rig setup created (paths relative to the agent root). A directory on the way
 * may have become a symlink out of the agent root since: such an entry is left alone, and a
 * directory that is now a symlink itself is removed as the link, never what it points to.
 */
export async function removeRigDirs(
  agentRoot: string,
  directories: readonly string[],
): Promise<{ successfulCleanups: string[]; failedCleanups: Array<{ directory: string; error: string }> }> {
  const root = await realRoot(agentRoot);
  const successfulCleanups: string[] = [];
  const failedCleanups: Array<{ directory: string; error: string }> = [];
  for (const directory of directories) {
    const where = await confinePath(root, directory, { followFinal: false });
    if (!where.ok || where.real === root) {
      const why = where.ok ? 'the agent root itself' : describeRefusal(where.refusal, root);
      failedCleanups.push({ directory, error: `${why}; left alone` });
      continue;
    }
    try {
      await rm(where.real, { recursive: true, force: true });
      successfulCleanups.push(directory);
    } catch (error) {
      failedCleanups.push({ directory, error: (error as Error).message });
    }
  }
  return { successfulCleanups, failedCleanups };
}
