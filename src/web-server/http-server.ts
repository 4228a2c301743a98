import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { confinePath, realRoot } from '../confine/index.ts';
import { configBody, contentTypeOf, etagOf, requestedFile } from './static-path.ts';
import { checkToken, queryToken, redactToken, tokenCookie, tokenMatches } from './token.ts';

/** The built dashboard (`npm run build:web`), at the package root. */
export const DIST_WEB = fileURLToPath(new URL('../../dist-web/', import.meta.url));

type Log = { info(o: object, m: string): void; warn(o: object, m: string): void };

export type WebServerOptions = {
  host: string;
  port: number;
  /** The dashboard's folder (default DIST_WEB). */
  root?: string;
  /** The WebSocket URLs `/config.json` lists, for a request that named this host (its Host header). */
  servers: (requestHostname: string | undefined) => string[];
  readonly: boolean;
  /** When set, every request needs it (the cookies `/?token=` sets, or a Bearer header). */
  token?: string | undefined;
  /**
   * The WebSocket ports of the servers listed: `/?token=` sets the token's cookie for each one
   * (`ribosome_token_<port>`, what their upgrades check), and these cookies open the dashboard.
   */
  tokenPorts: readonly number[];
  logger?: Log;
};

export type WebServer = { url: string; port: number; stop(): Promise<void> };

const HEADERS = {
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  // The first URL carries the token: no page may pass it on.
  'referrer-policy': 'no-referrer',
};

/**
 * The dashboard over HTTP: its static files (no listing, nothing outside its folder), `/config.json`,
 * and, with a token, the cookie hand-over (`/?token=T` sets one per listed server's port and
 * redirects to `/`; anything else without one gets 401, with a wrong one 403).
 */
export async function startWebServer(options: WebServerOptions): Promise<WebServer> {
  const root = await realRoot(options.root ?? DIST_WEB);
  const server = createServer((req, res) => {
    handle(req, res, root, options).catch((error: unknown) => {
      options.logger?.warn({ err: error, url: redactToken(req.url ?? '') }, 'dashboard request failed');
      if (!res.headersSent)
        page(res, 500, 'Internal error', 'The dashboard could not answer; see the server log.');
      else res.destroy();
    });
  });
  server.on('clientError', (_error, socket) => socket.destroy());
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const host = options.host.includes(':') ? `[${options.host}]` : options.host;
  const url = `http://${host}:${port}/`;
  options.logger?.info({ url }, 'dashboard listening');
  return {
    url,
    port,
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

async function handle(req: IncomingMessage, res: ServerResponse, root: string, options: WebServerOptions) {
  req.resume();
  const target = req.url ?? '/';
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    res.writeHead(405, { ...HEADERS, allow: 'GET, HEAD', 'content-length': 0 });
    res.end();
    return;
  }
  const file = requestedFile(target);
  const { token, tokenPorts } = options;
  if (token !== undefined) {
    const given = queryToken(target);
    if (file === 'index.html' && given !== undefined) {
      if (!tokenMatches(given, token)) {
        options.logger?.warn({ remote: req.socket.remoteAddress }, 'dashboard opened with a wrong token');
        return page(
          res,
          403,
          'Wrong token',
          'The token in this address is not the server’s. Open the address the server printed.',
        );
      }
      res.writeHead(302, {
        ...HEADERS,
        location: '/',
        'set-cookie': [...new Set(tokenPorts)].map((port) => tokenCookie(token, port)),
        'cache-control': 'no-store',
        'content-length': 0,
      });
      res.end();
      return;
    }
    const verdict = checkToken(
      { authorization: req.headers.authorization, cookie: req.headers.cookie },
      token,
      tokenPorts,
    );
    if (verdict === 'wrong') {
      options.logger?.warn({ remote: req.socket.remoteAddress }, 'dashboard request with a wrong token');
      return page(
        res,
        403,
        'Wrong token',
        'The token this browser holds for this dashboard is not the server’s (was the server restarted?). Open the address the server printed on its terminal (the one ending in ?token=…).',
      );
    }
    if (verdict === 'missing') {
      return page(
        res,
        401,
        'Token needed',
        'This dashboard needs its access token. Open the address the server printed on its terminal (the one ending in ?token=…).',
      );
    }
  }
  if (file === 'config.json') {
    const hostname = hostnameOf(req.headers.host);
    const body = configBody(options.servers(hostname), options.readonly);
    res.writeHead(200, {
      ...HEADERS,
      'content-type': 'application/json; charset=utf-8',
      'content-length': Buffer.byteLength(body),
      'cache-control': 'no-store',
    });
    res.end(req.method === 'HEAD' ? undefined : body);
    return;
  }
  const rootInfo = await stat(root).catch(() => undefined);
  if (!rootInfo?.isDirectory()) {
    return page(
      res,
      503,
      'Dashboard not built',
      'The dashboard’s files (dist-web/) are missing. Run <code>npm run build:web</code> in the Ribosome package, then reload.',
    );
  }
  if (file === undefined) return notFound(res);
  const confined = await confinePath(root, file);
  if (!confined.ok) return notFound(res);
  const info = await stat(confined.real).catch(() => undefined);
  if (!info?.isFile()) return notFound(res);
  const etag = etagOf(info.size, info.mtimeMs);
  const headers = { ...HEADERS, etag, 'cache-control': 'no-cache' };
  if (req.headers['if-none-match'] === etag) {
    res.writeHead(304, headers);
    res.end();
    return;
  }
  res.writeHead(200, {
    ...headers,
    'content-type': contentTypeOf(confined.real),
    'content-length': info.size,
  });
  if (req.method === 'HEAD') {
    res.end();
    return;
  }
  const stream = createReadStream(confined.real);
  stream.on('error', () => res.destroy());
  stream.pipe(res);
}

function hostnameOf(host: string | undefined): string | undefined {
  if (!host) return undefined;
  try {
    return new URL(`http://${host}`).hostname;
  } catch {
    return undefined;
  }
}

function notFound(res: ServerResponse): void {
  page(res, 404, 'Not found', 'Nothing here.');
}

function page(res: ServerResponse, status: number, title: string, message: string): void {
  const body = `<!doctype html>\n<html><head><meta charset="utf-8"><title>${title}</title></head><body><h1>${title}</h1><p>${message}</p></body></html>\n`;
  res.writeHead(status, {
    ...HEADERS,
    'content-type': 'text/html; charset=utf-8',
    'content-length': Buffer.byteLength(body),
    'cache-control': 'no-store',
  });
  res.end(body);
}
