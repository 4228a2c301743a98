import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { confinePath, realRoot } from '../../platform/confine/index.ts';
import { checkToken, queryToken, redactToken, tokenMatches } from '../../platform/http/token.ts';
import { ticketOrigin } from '../server/origin.ts';
import { configBody, contentTypeOf, etagOf, requestedFile } from './static-path.ts';

/** The built dashboard (`npm run build:web`), at the package root. */
export const DIST_WEB = fileURLToPath(new URL('../../../dist-web/', import.meta.url));

type Log = { info(o: object, m: string): void; warn(o: object, m: string): void };

export type WebServerOptions = {
  host: string;
  port: number;
  /** The dashboard's folder (default DIST_WEB). */
  root?: string;
  /** The WebSocket URLs `/config.json` lists, for a request that named this host (its Host header). */
  servers: (requestHostname: string | undefined) => string[];
  readonly: boolean;
  /**
   * The dashboard's key (the `?token=` of the address printed): when set, `/config.json` and
   * `/ticket` need it as `Authorization: Bearer`, which the page sends from its sessionStorage.
   */
  token?: string | undefined;
  /**
   * A ticket for a page of `origin` to open a WebSocket on the `server`-th server of the list, or
   * of a batch the `server`-th job, which the page names too (`&id=`: checked, as the list changes)
   * (readonly when this dashboard is), or why there is none.
   */
  ticket: (server: number, origin: string, id: string | undefined) => Promise<TicketAnswer>;
  /**
   * A batch's fleet, asked at each `/config.json` (its `batch` field; `servers` is then empty): the page
   * lists the jobs it names and `/ticket?server=N` is the N-th job's, however many `servers` lists.
   */
  batch?: () => Promise<object>;
  logger?: Log;
};

/**
 * A ticket, or why there is none: `unknown_server` (404, no such entry), `not_running` (409: the
 * entry is known, no server of it runs now), else the server could not give one (502).
 */
export type TicketAnswer =
  | { ok: true; ticket: string }
  | { ok: false; message: string; refusal?: 'unknown_server' | 'not_running' };

const REFUSAL_STATUS = { unknown_server: 404, not_running: 409 } as const;

export type WebServer = { url: string; port: number; stop(): Promise<void> };

const HEADERS = {
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  // The first URL carries the token: no page may pass it on.
  'referrer-policy': 'no-referrer',
};

/**
 * The dashboard over HTTP: its static files (no listing, nothing outside its folder; the same for
 * everyone, they hold nothing secret), `/config.json` and `/ticket?server=N&origin=O` (a WebSocket
 * credential for the page). With a key, those two need it (401 without, 403 wrong), and `/?token=`
 * with a wrong one gets a 403 page. No cookie is ever set (docs/dashboard.md#access-token).
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
  const { token } = options;
  if (token !== undefined && file === 'index.html') {
    const given = queryToken(target);
    if (given !== undefined && !tokenMatches(given, token)) {
      options.logger?.warn({ remote: req.socket.remoteAddress }, 'dashboard opened with a wrong token');
      return page(
        res,
        403,
        'Wrong token',
        'The token in this address is not this dashboard’s (a restarted server has a new one; `ribosome web --readonly` prints a key of its own). Open the address the dashboard printed.',
      );
    }
  }
  if (file === 'config.json' || file === 'ticket') {
    if (token !== undefined) {
      const verdict = checkToken({ authorization: req.headers.authorization }, token);
      if (verdict !== 'ok') {
        if (verdict === 'wrong')
          options.logger?.warn({ remote: req.socket.remoteAddress }, 'dashboard request with a wrong token');
        return json(res, verdict === 'missing' ? 401 : 403, {
          error: verdict === 'missing' ? 'token_required' : 'token_wrong',
          message:
            verdict === 'missing'
              ? 'This dashboard needs its access token. Open the address the server printed (the one ending in ?token=…).'
              : 'The token this page holds is not this dashboard’s (a restarted server has a new one; `ribosome web --readonly` prints a key of its own). Open the address the dashboard printed.',
        });
      }
    }
    if (file === 'config.json') {
      const batch = options.batch ? await options.batch() : undefined;
      const servers = batch ? [] : options.servers(hostnameOf(req.headers.host));
      return jsonText(res, 200, configBody(servers, options.readonly, batch));
    }
    return ticket(req, res, options);
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

const firstHeader = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value);

/** `/ticket?server=N&origin=O`: a ticket for this page's origin only (ticketOrigin). */
async function ticket(req: IncomingMessage, res: ServerResponse, options: WebServerOptions): Promise<void> {
  const query = new URL(req.url ?? '/', 'http://x').searchParams;
  const server = Number(query.get('server'));
  const wanted = ticketOrigin({
    claimed: query.get('origin') ?? '',
    host: req.headers.host,
    origin: req.headers.origin,
    keyed: options.token !== undefined,
    fetchSite: firstHeader(req.headers['sec-fetch-site']),
  });
  if (!wanted.ok) return json(res, 403, { error: 'origin_not_allowed', message: wanted.why });
  // A batch's jobs change between requests: its ticket source says which it has (unknown_server).
  const listed = (n: number) => options.batch !== undefined || n < options.servers(undefined).length;
  if (!(Number.isInteger(server) && server >= 0 && listed(server)))
    return json(res, 404, {
      error: 'unknown_server',
      message: 'server must be the index of a listed server',
    });
  const answer = await options.ticket(server, wanted.origin, query.get('id') ?? undefined);
  if (answer.ok) return json(res, 200, { ticket: answer.ticket });
  const refusal = answer.refusal ?? 'ticket_failed';
  const status = answer.refusal ? REFUSAL_STATUS[answer.refusal] : 502;
  return json(res, status, { error: refusal, message: answer.message });
}

function json(res: ServerResponse, status: number, value: unknown): void {
  jsonText(res, status, JSON.stringify(value));
}

function jsonText(res: ServerResponse, status: number, body: string): void {
  res.writeHead(status, {
    ...HEADERS,
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(body),
    'cache-control': 'no-store',
  });
  res.end(body);
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
  const body = `<!doctype html>\n<html><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>${title}</title></head><body><h1>${title}</h1><p>${message}</p></body></html>\n`;
  res.writeHead(status, {
    ...HEADERS,
    'content-type': 'text/html; charset=utf-8',
    'content-length': Buffer.byteLength(body),
    'cache-control': 'no-store',
  });
  res.end(body);
}
