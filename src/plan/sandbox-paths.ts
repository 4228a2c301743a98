import { isAbsolute, posix } from 'node:path';

/**
 * Where a path of `sandbox.allowWrite`, `readOnly` or `hide` points (docs/agents.md#the-sandbox):
 * absolute as written, `~` and `~/...` in the user's home, anything else relative to the agent root.
 * Pure.
 */
export function resolveSandboxPath(path: string, at: { home: string; agentRoot: string }): string {
  const joined =
    path === '~' || path.startsWith('~/')
      ? posix.join(at.home, path.slice(1))
      : isAbsolute(path)
        ? posix.normalize(path)
        : posix.join(at.agentRoot, path);
  // `dir/` and `dir` are one path.
  return joined.replace(/(.)\/$/, '$1');
}

/** True when `inner` is `outer` or lies under it (both absolute and normalized). */
export function within(inner: string, outer: string): boolean {
  return inner === outer || outer === '/' || inner.startsWith(`${outer}/`);
}
