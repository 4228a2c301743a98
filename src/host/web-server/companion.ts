import type { Companion } from '../server/runtime.ts';
import { startWebServer, type WebServer } from './http-server.ts';

/** Binding to every address: a browser reaches the server by the name it used for the page. */
const WILDCARD = new Set(['0.0.0.0', '::', '[::]']);

/**
 * `ribosome run --web`: the dashboard on port + 2 (or `webPort`; 0 = dynamic) of the server's host,
 * listing this server; its pages get tickets from this process to connect. Prints its address on stderr (with `?token=` when a
 * token is set: the one place the token is shown).
 */
export function dashboardCompanion(options: {
  host: string;
  webPort: number | undefined;
  token: string | undefined;
  root?: string | undefined;
  print: (line: string) => void;
}): Companion<WebServer> {
  return async (deps) => {
    const { host, token } = options;
    const port = options.webPort ?? deps.port + 2;
    if (port > 65535)
      throw new Error(`dashboard: port ${port} does not exist; choose a --web-port (0 for a dynamic one)`);
    let web: WebServer;
    try {
      web = await startWebServer({
        host,
        port,
        ...(options.root === undefined ? {} : { root: options.root }),
        readonly: false,
        token,
        // The page's ticket comes from this process: the server's own --web is readandwrite.
        ticket: async (_server, origin) => {
          const minted = deps.mintTicket(origin, 'readandwrite');
          return minted ? { ok: true, ticket: minted.ticket } : { ok: false, message: 'not an origin' };
        },
        logger: deps.logger,
        servers: (hostname) =>
          WILDCARD.has(host) && hostname ? [`ws://${hostname}:${deps.port}`] : [deps.url],
      });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE') {
        throw new Error(
          `dashboard: port ${port} on ${host} is already in use; choose another --web-port (0 for a dynamic one)`,
        );
      }
      throw error;
    }
    options.print(`dashboard ${dashboardAddress(web.url, token)}`);
    return web;
  };
}

/** The dashboard's address as printed: with its key (`?token=`) when the server has a token. */
export function dashboardAddress(url: string, token: string | undefined): string {
  return `${url}${token === undefined ? '' : `?token=${encodeURIComponent(token)}`}`;
}
