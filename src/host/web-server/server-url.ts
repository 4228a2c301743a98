/**
 * A server address given to `ribosome web`: `ws://HOST:PORT` or `wss://HOST:PORT` (no path, query,
 * fragment or credentials; port 1-65535, the scheme's default when absent). Pure.
 */
export type ServerUrl = { ok: true; url: string; port: number } | { ok: false; message: string };

const DEFAULT_PORT: Record<string, number> = { 'ws:': 80, 'wss:': 443 };

export function parseServerUrl(text: string): ServerUrl {
  const bad = (why: string): ServerUrl => ({
    ok: false,
    message: `"${text}" is not a WebSocket address (${why}); expected ws://HOST:PORT`,
  });
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return bad('not a URL, or its port is not a number from 1 to 65535');
  }
  const fallback = DEFAULT_PORT[url.protocol];
  if (fallback === undefined) return bad(`scheme ${url.protocol} instead of ws: or wss:`);
  if (!url.hostname) return bad('no host');
  if (url.username || url.password) return bad('credentials in it');
  if ((url.pathname !== '/' && url.pathname !== '') || url.search || url.hash)
    return bad('a path, query or fragment after the port');
  const port = url.port === '' ? fallback : Number(url.port);
  if (!(Number.isInteger(port) && port >= 1 && port <= 65535)) return bad('port not from 1 to 65535');
  return { ok: true, url: `${url.protocol}//${url.host}`, port };
}
