/**
 * Parsing of git's NUL-separated path lists. Paths stay Buffers from git's output to git's input and to
 * fs calls, so a file name that is not valid UTF-8 still round-trips byte for byte.
 */

export type ChangedPath = {
  /** Relative to the work tree, `/`-separated, as git prints it. */
  path: Buffer;
  /** In the index (modified, deleted, type-changed) rather than new. */
  tracked: boolean;
  /**
   * A directory git lists but will not look into: a nested repository (it has its own `.git`). Its
   * files are listed by walking it (see opaque-dirs.ts).
   */
  opaqueDir: boolean;
};

const NUL = 0;
const SLASH = 0x2f;

export function splitNul(output: Buffer): Buffer[] {
  const parts: Buffer[] = [];
  let start = 0;
  for (let end = output.indexOf(NUL); end >= 0; end = output.indexOf(NUL, start)) {
    if (end > start) parts.push(output.subarray(start, end));
    start = end + 1;
  }
  if (start < output.length) parts.push(output.subarray(start));
  return parts;
}

export function joinNul(paths: readonly Buffer[]): Buffer {
  const parts: Buffer[] = [];
  for (const path of paths) parts.push(path, Buffer.of(NUL));
  return Buffer.concat(parts);
}

/** `git status --porcelain -z --no-renames`: entries `XY path`, `??` for untracked ones. */
export function parseStatus(output: Buffer): ChangedPath[] {
  const entries: ChangedPath[] = [];
  for (const entry of splitNul(output)) {
    if (entry.length < 4) continue;
    const path = entry.subarray(3);
    entries.push({ path, tracked: entry.toString('latin1', 0, 2) !== '??', opaqueDir: endsWithSlash(path) });
  }
  return entries;
}

/** `git ls-files -z -o`: untracked paths only. */
export function parseUntracked(output: Buffer): ChangedPath[] {
  return splitNul(output).map((path) => ({ path, tracked: false, opaqueDir: endsWithSlash(path) }));
}

/** `git diff-* -z --name-status` (no renames): a status letter, then its path. */
export function parseNameStatus(output: Buffer): Array<{ status: string; path: Buffer }> {
  const parts = splitNul(output);
  const entries: Array<{ status: string; path: Buffer }> = [];
  for (let i = 0; i + 1 < parts.length; i += 2) {
    entries.push({ status: parts[i]!.toString('latin1'), path: parts[i + 1]! });
  }
  return entries;
}

function endsWithSlash(path: Buffer): boolean {
  return path.length > 0 && path[path.length - 1] === SLASH;
}
