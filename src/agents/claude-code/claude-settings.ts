/**
 * Settings Ribosome passes Claude Code with `--settings` (added over the user's or the isolated
 * config's own, never replacing them): deny rules keeping its file tools out of the data directory.
 * Claude Code honours `permissions.deny` even in bypassPermissions mode. Pure.
 */

/** The tools that write files; an Edit rule covers them all, each is named to be sure. */
const WRITING_TOOLS = ['Edit', 'Write', 'NotebookEdit', 'MultiEdit'] as const;

/**
 * Deny rules for every path of `dirs` (absolute: the data directory's link in the agent root, and
 * where it leads). `//` starts an absolute path in a permission rule.
 */
export function readOnlyDenyRules(dirs: readonly string[]): string[] {
  const unique = [...new Set(dirs)];
  return WRITING_TOOLS.flatMap((tool) =>
    unique.flatMap((dir) => [`${tool}(/${dir})`, `${tool}(/${dir}/**)`]),
  );
}

/** The `--settings` JSON, or undefined when there is nothing to add. */
export function claudeSettings(readOnlyDirs: readonly string[]): string | undefined {
  if (readOnlyDirs.length === 0) return undefined;
  return JSON.stringify({ permissions: { deny: readOnlyDenyRules(readOnlyDirs) } });
}
