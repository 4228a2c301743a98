/**
 * A stdio server's command line that starts it in `cwd`, for a CLI whose MCP config has no working
 * directory (Claude Code's): `sh -c 'cd "$1" && shift && exec "$@"'`, so the server itself is the
 * process the CLI talks to, and no path is quoted into a shell line. Pure.
 */
export function inDirectory(
  cwd: string,
  command: string,
  args: readonly string[],
): { command: string; args: string[] } {
  return { command: '/bin/sh', args: ['-c', 'cd "$1" && shift && exec "$@"', 'sh', cwd, command, ...args] };
}
