import { extname } from 'node:path';

/** What the dashboard's static files are served as; anything else is application/octet-stream. */
const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
};

export function contentTypeOf(path: string): string {
  return CONTENT_TYPES[extname(path).toLowerCase()] ?? 'application/octet-stream';
}

/**
 * The file a request path names, relative to the dashboard's folder (`/` is `index.html`), or
 * undefined for a path that cannot name one (bad escapes, NUL, a directory). Escapes (`..`, links
 * out) are refused after this, by `confinePath` on the real folder. Pure.
 */
export function requestedFile(target: string): string | undefined {
  const pathname = target.split(/[?#]/, 1)[0] ?? '';
  let decoded: string;
  try {
    decoded = decodeURIComponent(pathname);
  } catch {
    return undefined;
  }
  if (!decoded.startsWith('/') || decoded.includes('\0') || decoded.includes('\\')) return undefined;
  if (decoded === '/') return 'index.html';
  if (decoded.endsWith('/')) return undefined;
  return decoded.slice(1);
}

/** A weak validator from what changes when the file does. */
export function etagOf(size: number, mtimeMs: number): string {
  return `W/"${size.toString(16)}-${Math.floor(mtimeMs).toString(16)}"`;
}

/**
 * `/config.json`: the WebSocket URLs the page shows, whether it may send commands, and for a batch
 * its fleet (the page then lists its jobs, and opens one at a time).
 */
export function configBody(servers: readonly string[], readonly: boolean, batch?: object): string {
  return JSON.stringify({ servers: servers.map((url) => ({ url })), readonly, ...(batch ? { batch } : {}) });
}
