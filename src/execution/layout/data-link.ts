/**
 * The data directory (`--data`) as the agent sees it: a symlink at a fixed name in the agent root.
 * The link is left out of checkpoints (an exclude rule of the shadow repository), so no rollback
 * deletes or restores it, and git never follows a link: the data never enters a checkpoint.
 */
import { lstat, readlink, rm, symlink } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import { isInside } from '../../platform/confine/index.ts';

import { DATA_LINK_NAME } from './data-link-name.ts';

/** The link's name in the agent root. Unlikely to clash with a project's own `data/`. */
export { DATA_LINK_NAME };

/** The gitignore rule keeping the link out of checkpoints. */
export const DATA_LINK_EXCLUDE = `/${DATA_LINK_NAME}`;

export function dataLinkPath(agentRoot: string): string {
  return join(agentRoot, DATA_LINK_NAME);
}

/**
 * Makes `<agentRoot>/ribosome-data` a link to `dataDir`, or leaves it when it already is one. Throws,
 * naming what to do, when something else stands there or the data directory lies inside the agent
 * root (its files would be checkpointed and rolled back like the agent's).
 */
export async function linkDataDir(agentRoot: string, dataDir: string): Promise<string> {
  const link = dataLinkPath(agentRoot);
  const target = resolve(dataDir);
  if (isInside(resolve(agentRoot), target)) {
    throw new Error(
      `the data directory ${target} is inside the agent root ${agentRoot}: choose a --data directory outside it`,
    );
  }
  const existing = await lstat(link).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return undefined;
    throw error;
  });
  // Beside the agent root (the default, `<execution>/data`) the link is relative (`../data`): the same
  // bytes in every execution, so what an agent lists (`ls -l` shows a link's length) does not depend
  // on where the execution is, and a replay's requests match the recording's (docs/testing-plans.md).
  const linked = isInside(dirname(resolve(agentRoot)), target)
    ? relative(resolve(agentRoot), target)
    : target;
  if (existing === undefined) {
    await symlink(linked, link, 'dir');
    return link;
  }
  if (existing.isSymbolicLink() && resolve(agentRoot, await readlink(link)) === target) return link;
  if (existing.isSymbolicLink()) {
    // A link of ours to an earlier --data: it points at the data directory of this start instead.
    await rm(link);
    await symlink(linked, link, 'dir');
    return link;
  }
  throw new Error(
    `${link} exists and is not the link to the data directory; move it out of the agent root (the data directory is linked there)`,
  );
}
