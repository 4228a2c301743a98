/**
 * How the paths of a checkpoint go to `git update-index`. A few go in one call, each new object a file
 * of its own (a loose object). Many (a first checkpoint, an `npm install`) go in calls that each write
 * their new objects into one pack instead: creating, writing and renaming 20 000 small files cost
 * more than hashing them (strace: two thirds of update-index's time in openat). A call is capped
 * because git 2.39 checks each new object of a pack against every earlier one (quadratic); the
 * threshold keeps small checkpoints loose, so packs stay few (one per large checkpoint).
 */

/** From this many paths a checkpoint writes packs. */
export const PACK_MIN_PATHS = 1000;
/** At most this many paths per pack-writing call: 8 000 cost ~40 ms of comparisons each. */
export const PACK_MAX_PATHS = 8000;

/**
 * Settings of a pack-writing update-index: every file over 1 byte streams into the call's pack
 * (git's bulk check-in, a transaction per update-index call since git 2.37), compressed at the
 * level of loose objects (1, fast) rather than git's pack default (6).
 */
export const PACK_SETTINGS = ['-c', 'core.bigFileThreshold=1', '-c', 'pack.compression=1'] as const;

export type UpdateBatch = { paths: Buffer[]; pack: boolean };

/**
 * The paths split into update-index calls; none when there is nothing to update. Only `packable` paths
 * (regular files over 1 byte, which stream into the pack) go to a pack-writing call: one with a loose
 * object too fails in git 2.39 if that object comes first (with core.fsyncMethod=batch its pack lands
 * beside the path git renames it from: "unable to rename temporary file"). Links, tiny files and
 * removals go to a loose call.
 */
export function updateBatches(
  paths: readonly Buffer[],
  packable: (path: Buffer) => boolean,
  packsAllowed: boolean,
): UpdateBatch[] {
  if (paths.length === 0) return [];
  const packed = packsAllowed ? paths.filter(packable) : [];
  if (packed.length < PACK_MIN_PATHS) return [{ paths: [...paths], pack: false }];
  const loose = paths.filter((path) => !packable(path));
  const batches: UpdateBatch[] = loose.length > 0 ? [{ paths: loose, pack: false }] : [];
  const count = Math.ceil(packed.length / PACK_MAX_PATHS);
  const size = Math.ceil(packed.length / count);
  for (let start = 0; start < packed.length; start += size)
    batches.push({ paths: packed.slice(start, start + size), pack: true });
  return batches;
}
