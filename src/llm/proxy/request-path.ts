/**
 * Keeps a forwarded path under its target's path prefix (a route's `/p/<n>` base URL, or the server's
 * provider): an upstream that normalizes paths would otherwise let `/p/0/../../tenant-b/...` reach
 * another tenant. Pure.
 */

export type ConfinedPath = { ok: true; url: string } | { ok: false; message: string };

/**
 * Dots and separators as the most eager upstream reads them: `%2e` a dot, `%2f`, `%5c` and `\` a slash.
 * Any other escape is left as it is, since an upstream decodes once.
 */
const EAGER = /%2e|%2f|%5c|\\/gi;
const eagerChar = (match: string): string => (match.toLowerCase() === '%2e' ? '.' : '/');

/**
 * The request-target (origin form: path and query) with its dot segments resolved, read eagerly
 * (EAGER), or why it is refused: a `..` that climbs above its start. A path without dot segments is
 * returned byte for byte; one with them as the eager reading resolves it, so that no reading by an
 * upstream, eager or not, resolves it to anything else.
 */
export function confinePath(url: string): ConfinedPath {
  const queryAt = url.indexOf('?');
  const path = queryAt < 0 ? url : url.slice(0, queryAt);
  // No dot and no escape: no segment can be `.` or `..`, however eagerly it is read.
  if (!path.includes('.') && !path.includes('%')) return { ok: true, url };
  const query = queryAt < 0 ? '' : url.slice(queryAt);
  const segments = path.replace(EAGER, eagerChar).split('/').slice(1);
  const kept: string[] = [];
  let changed = false;
  for (const segment of segments) {
    if (segment === '.') {
      changed = true;
    } else if (segment === '..') {
      if (kept.length === 0) {
        return {
          ok: false,
          message:
            'Proxy: the request path climbs above its start with ".." (also as %2e%2e, or after %2f, %5c or "\\"); refused, as it would leave the provider\'s path prefix.',
        };
      }
      kept.pop();
      changed = true;
    } else {
      kept.push(segment);
    }
  }
  if (!changed) return { ok: true, url };
  // `/a/b/..` is the folder `/a/`, as an upstream resolves it.
  const last = segments.at(-1);
  const trailing = last === '.' || last === '..' ? '/' : '';
  const joined = `/${kept.join('/')}`;
  return { ok: true, url: `${joined}${trailing && !joined.endsWith('/') ? trailing : ''}${query}` };
}
