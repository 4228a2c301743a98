/**
 * Which files a codon's `outputFiles` globs name, from what each glob matched: paths relative to the
 * agent root, normalized, never inside `.git` or the data directory's link (`ribosome-data`, never an
 * output: left out without a word), never climbing out; and which globs named none. Pure:
 * the globbing and every look at the disk are the shell's (copy-outputs.ts).
 */
import { normalize, sep } from 'node:path';
import { DATA_LINK_NAME } from '../layout/data-link.ts';

export type OutputSelection = {
  /** Sorted, each once. */
  files: string[];
  /** Globs that matched no candidate file. */
  unmatched: string[];
};

/**
 * A relative path that may be copied out: inside the root, not the root itself, not in `.git`, not
 * the data directory's link nor anything through it.
 */
export function copyablePath(rel: string): string | undefined {
  const path = normalize(rel);
  if (path === '.' || path === '' || path.startsWith(sep) || path.startsWith(`..${sep}`) || path === '..')
    return undefined;
  const parts = path.split(sep);
  return parts.includes('.git') || parts[0] === DATA_LINK_NAME ? undefined : path;
}

/** `hits`: for each glob, in the plan's order, the relative paths it matched. */
export function selectOutputs(
  hits: ReadonlyArray<{ glob: string; paths: readonly string[] }>,
): OutputSelection {
  const files = new Set<string>();
  const unmatched: string[] = [];
  for (const { glob, paths } of hits) {
    const usable = paths.map(copyablePath).filter((path) => path !== undefined);
    if (usable.length === 0) unmatched.push(glob);
    for (const path of usable) files.add(path);
  }
  return { files: [...files].sort(), unmatched };
}
