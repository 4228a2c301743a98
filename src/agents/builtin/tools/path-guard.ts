/**
 * Keeps tool paths inside the agent root. A path is checked twice: as written (so `../x` is refused)
 * and after resolving symlinks on its longest existing prefix (so a link pointing out is refused too,
 * even when the file it names does not exist yet).
 */
import { realpath } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';

export type GuardedPath = { ok: true; path: string } | { ok: false; message: string };

export function isInside(root: string, candidate: string): boolean {
  const rel = relative(root, candidate);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}

/** Resolves symlinks of the longest existing prefix of `path`; the missing rest is appended as is. */
async function realpathOfExisting(path: string): Promise<string> {
  const missing: string[] = [];
  let current = path;
  for (;;) {
    try {
      return join(await realpath(current), ...missing.reverse());
    } catch (err) {
      const parent = dirname(current);
      const code = err instanceof Error && 'code' in err ? err.code : undefined;
      if (parent === current || (code !== 'ENOENT' && code !== 'ENOTDIR')) throw err;
      missing.push(current.slice(parent.length).replace(/^[/\\]/, ''));
      current = parent;
    }
  }
}

/** `root` must itself be a realpath. Relative paths are taken from the root. */
export async function resolveInside(root: string, filePath: string): Promise<GuardedPath> {
  const candidate = resolve(root, filePath);
  const refused: GuardedPath = {
    ok: false,
    message: `Path ${filePath} is outside the agent root ${root}; tools may only touch files inside it.`,
  };
  if (!isInside(root, candidate)) return refused;
  const real = await realpathOfExisting(candidate);
  if (!isInside(root, real)) return refused;
  return { ok: true, path: candidate };
}
