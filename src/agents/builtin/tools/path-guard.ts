/**
 * Keeps tool paths inside the agent root (src/platform/confine): a path is refused when it climbs out as
 * written (`../x`) or when any symlink on its way leads out, a dangling one too (writing through
 * it would create its target outside). Tools act on `real`, where the path leads.
 */
import {
  type ConfinePathOptions,
  confinePath,
  describeRefusal,
  isInside,
} from '../../../platform/confine/index.ts';

export { isInside };

export type GuardedPath =
  /** `path`: as the model wrote it, made absolute (for showing); `real`: every link followed. */
  { ok: true; path: string; real: string } | { ok: false; message: string };

/**
 * `root` must itself be a realpath. Relative paths are taken from the root. A link into one of
 * `readOnly` (real paths) is followed, not refused: `refuseReadOnly` is the writers' second check.
 */
export async function resolveInside(
  root: string,
  filePath: string,
  options: ConfinePathOptions & { readOnly?: readonly string[] | undefined } = {},
): Promise<GuardedPath> {
  const { readOnly = [], ...rest } = options;
  const confined = await confinePath(root, filePath, { ...rest, alsoInside: readOnly });
  if (confined.ok) return confined;
  return {
    ok: false,
    message: `${describeRefusal(confined.refusal, root)}. Tools may only touch files inside it.`,
  };
}

/** For Write and Edit: a path leading into a read-only directory (the data directory), refused. */
export function refuseReadOnly(
  target: { real: string },
  filePath: string,
  readOnly: readonly string[] = [],
): { ok: true } | { ok: false; message: string } {
  const dir = readOnly.find((candidate) => isInside(candidate, target.real));
  if (dir === undefined) return { ok: true };
  return {
    ok: false,
    message: `refused: ${filePath} is in the data directory ${dir}, which is read-only. Write your files elsewhere in the agent root.`,
  };
}
