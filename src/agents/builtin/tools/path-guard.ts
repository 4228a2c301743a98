/**
 * Keeps tool paths inside the agent root (src/confine): a path is refused when it climbs out as
 * written (`../x`) or when any symlink on its way leads out, a dangling one too (writing through
 * it would create its target outside). Tools act on `real`, where the path leads.
 */
import { type ConfinePathOptions, confinePath, describeRefusal, isInside } from '../../../confine/index.ts';

export { isInside };

export type GuardedPath =
  /** `path`: as the model wrote it, made absolute (for showing); `real`: every link followed. */
  { ok: true; path: string; real: string } | { ok: false; message: string };

/** `root` must itself be a realpath. Relative paths are taken from the root. */
export async function resolveInside(
  root: string,
  filePath: string,
  options: ConfinePathOptions = {},
): Promise<GuardedPath> {
  const confined = await confinePath(root, filePath, options);
  if (confined.ok) return confined;
  return {
    ok: false,
    message: `${describeRefusal(confined.refusal, root)}. Tools may only touch files inside it.`,
  };
}
