/**
 * Settings Ribosome passes Claude Code with `--settings` (added over the user's or the isolated
 * config's own, never replacing them): deny rules keeping its file tools out of the data directory.
 * Claude Code honours `permissions.deny` even in bypassPermissions mode. Pure.
 */

/**
 * The tools that write files; an Edit rule covers them all, each the version has is named to be sure.
 * MultiEdit is gone from Claude Code 2 (2.0.32 has none), and a rule naming a tool the version lacks
 * is printed as a warning at every start ("matches no known tool"): it is named for an older or
 * unknown version only.
 */
export function writingTools(version: string | undefined): string[] {
  const major = version === undefined ? Number.NaN : Number(version.split('.')[0]);
  const tools = ['Edit', 'Write', 'NotebookEdit'];
  return Number.isInteger(major) && major >= 2 ? tools : [...tools, 'MultiEdit'];
}

/**
 * Deny rules for every path of `dirs` (absolute: the data directory's link in the agent root, and
 * where it leads), for Claude Code `version`. `//` starts an absolute path in a permission rule.
 */
export function readOnlyDenyRules(dirs: readonly string[], version: string | undefined): string[] {
  const unique = [...new Set(dirs)];
  return writingTools(version).flatMap((tool) =>
    unique.flatMap((dir) => [`${tool}(/${dir})`, `${tool}(/${dir}/**)`]),
  );
}

/** The `--settings` JSON for Claude Code `version`, or undefined when there is nothing to add. */
export function claudeSettings(
  readOnlyDirs: readonly string[],
  version: string | undefined,
): string | undefined {
  if (readOnlyDirs.length === 0) return undefined;
  return JSON.stringify({ permissions: { deny: readOnlyDenyRules(readOnlyDirs, version) } });
}
