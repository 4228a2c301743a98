import { once } from 'node:events';
import http from 'node:http';
import type { LookupFunction } from 'node:net';
import type { Logger } from 'pino';
import { buildConnector, Pool } from 'undici';
import { z } from 'zod';
import { DEFAULT_MAX_BODY_BYTES, DEFAULT_MAX_IN_FLIGHT_BYTES } from '../../plan/config/proxy-defaults.ts';
import { errorForLog, redactUrl } from '../../platform/credentials/log-safe.ts';
import { parseTarget, type Target } from '../../platform/http/target.ts';
import { takeCaller } from '../cassette/caller.ts';
import type { CassetteHooks } from '../cassette/hooks.ts';
import { CREDENTIAL_HEADER, checkAccess } from './access.ts';
import { createBodyBudget } from './body-budget.ts';
import { ON_USED_CONNECTION } from './classify-error.ts';
import { compose, middlewareName } from './compose.ts';
import { anthropicErrorBody, type ExchangeFailure, ProxyError } from './errors.ts';
import { createForwarder, type Forwarder, type Upstream } from './forwarder.ts';
import { confinePath } from './request-path.ts';
import type { SpendCheck } from './spend-check.ts';
import { type Middleware, MiddlewareSchema } from './types.ts';

const RunnerOptionsSchema = z.object({
  /** Only `passthrough` exists (spec 8); anything else is refused here. */
  mode: z.string(),
  /** [port] Where to listen; 0 lets the OS choose (tests). */
  port: z.number().int().min(0).max(65535),
  /** [host='127.0.0.1'] */
  host: z.string().min(1).default('127.0.0.1'),
  /** Provider base URL; a path prefix is kept. */
  targetUrl: z.string(),
  /**
   * [routes=[]] More providers (plan, codon or sentinel `provider`): a request to `/p/<n>/<path>`
   * goes to routes[n] with `/<path>`; any other path to targetUrl. Without routes no path is special.
   */
  routes: z.array(z.string()).default([]),
  logger: z.custom<Logger>((value) => typeof value === 'object' && value !== null),
  /** Abort an exchange when the target sends nothing for this long; 0 = never. */
  idleTimeoutMs: z.number().int().nonnegative(),
  /** [middleware=[]] Run in this order on requests and on responses. */
  middleware: z.array(z.custom<Middleware>((value) => MiddlewareSchema.safeParse(value).success)).default([]),
  /** [maxBodyBytes=32 MiB] Larger request bodies get 413. */
  maxBodyBytes: z.number().int().positive().default(DEFAULT_MAX_BODY_BYTES),
  /** [maxInFlightBytes=256 MiB] Request bytes held across exchanges; past it 503 + retry-after. */
  maxInFlightBytes: z.number().int().positive().default(DEFAULT_MAX_IN_FLIGHT_BYTES),
  /** [name='Ribosome'] Shown by the health answer: "<name> Proxy OK". */
  name: z.string().min(1).default('Ribosome'),
  /**
   * [credentials=[]] When any: every request but the health check must carry one of them (access.ts),
   * else it is refused (401 or 403) and counted. A proxy beyond loopback gets them; one on loopback none.
   */
  credentials: z.array(z.string().min(1)).default([]),
  /** The run's budget check of model requests (spend-check.ts); absent: none. */
  spend: z.custom<SpendCheck>((value) => typeof value === 'function').optional(),
  /** Recording or replay of the exchanges (docs/testing-plans.md); absent: neither. */
  cassette: z.custom<CassetteHooks>((value) => typeof value === 'object' && value !== null).optional(),
  /** Resolver for the target's host name (tests inject a failing one; default: the OS resolver). */
  lookup: z.custom<LookupFunction>((value) => typeof value === 'function').optional(),
});

export type ProxyRunnerOptions = z.input<typeof RunnerOptionsSchema>;

// Node's default answers to requests it cannot parse: headers too large, request too slow.
const CLIENT_ERROR_STATUS = new Map([
  ['HPE_HEADER_OVERFLOW', '431 Request Header Fields Too Large'],
  ['HPE_CHUNK_EXTENSIONS_OVERFLOW', '413 Payload Too Large'],
  ['ERR_HTTP_REQUEST_TIMEOUT', '408 Request Timeout'],
]);

type State = { kind: 'idle' } | { kind: 'listening'; url: string } | { kind: 'stopped' };

/** `/p/<n>` and what follows it (a path, a query, or nothing). */
const ROUTE_PATH = /^\/p\/(\d{1,4})(?=[/?]|$)(.*)$/;

/**
 * Opens sockets to the target as undici's own connector does, and marks an error of a socket that
 * had read bytes before (a kept-alive one, reused) so the forwarder may retry its request once.
 */
function markingConnector(lookup: LookupFunction | undefined): buildConnector.connector {
  const connect = buildConnector(lookup ? { lookup } : {});
  return (options, callback) =>
    connect(options, (error, socket) => {
      socket?.prependListener('error', (socketError: Error) => {
        if (socket.bytesRead > 0) Object.assign(socketError, { [ON_USED_CONNECTION]: true });
      });
      if (error) callback(error, null);
      else callback(null, socket!);
    });
}

/** The upstream connection of one provider URL, or a ProxyError for a URL that is not one. */
function upstreamOf(url: string, lookup: LookupFunction | undefined, what: string): Upstream {
  const target = parseTarget(url);
  if (!target.ok) {
    throw new ProxyError('PROXY_INVALID_OPTIONS', `Invalid proxy ${what} URL: ${target.message}.`);
  }
  const { protocol, host } = target.value;
  // undici rather than node:http for the target side: about a quarter less CPU per exchange. Kept-alive
  // sockets with Nagle off (undici's default), so each SSE chunk leaves as soon as it arrives.
  return {
    target: target.value,
    dispatcher: new Pool(`${protocol}//${host}`, { connect: markingConnector(lookup) }),
  };
}

/** The health answer's header that counts the requests refused so far (no credential, path outside). */
export const REFUSED_HEADER = 'x-ribosome-proxy-refused';

/** A request-target in origin form (path and query): an absolute one (`GET http://host/path`) is cut to it. */
function originForm(url: string): string {
  if (url.startsWith('/')) return url;
  try {
    const parsed = new URL(url);
    return parsed.pathname + parsed.search;
  } catch {
    return '/';
  }
}

/** Spec 4.4 health paths; any other path is forwarded. */
function isHealthCheck(method: string | undefined, url: string | undefined): boolean {
  return (method === 'GET' || method === 'HEAD') && (url === '/' || url === '/health');
}

/**
 * The proxy runner (spec 4.4): one HTTP server in passthrough mode. `start()` listens and returns the
 * proxy URL; `stop()` ends open exchanges, closes every connection and resolves when all is closed.
 */
export class ProxyRunner {
  readonly #logger: Logger;
  readonly #host: string;
  readonly #port: number;
  readonly #target: Target;
  readonly #dispatcher: Upstream['dispatcher'];
  readonly #routes: Upstream[];
  readonly #server: http.Server;
  readonly #forwarder: Forwarder;
  readonly #middlewareNames: string[];
  readonly #credentials: readonly string[];
  #refused = 0;
  #state: State = { kind: 'idle' };

  constructor(options: ProxyRunnerOptions) {
    const parsed = RunnerOptionsSchema.safeParse(options);
    if (!parsed.success) {
      throw new ProxyError(
        'PROXY_INVALID_OPTIONS',
        `Invalid proxy options: ${z.prettifyError(parsed.error)}`,
      );
    }
    const o = parsed.data;
    if (o.maxInFlightBytes < o.maxBodyBytes) {
      throw new ProxyError(
        'PROXY_INVALID_OPTIONS',
        `maxInFlightBytes (${o.maxInFlightBytes}) is below maxBodyBytes (${o.maxBodyBytes}): ` +
          'a body of the allowed size could never be taken.',
      );
    }
    if (o.mode !== 'passthrough') {
      throw new ProxyError(
        'PROXY_MODE_UNSUPPORTED',
        `Proxy mode "${o.mode}" is not supported; use "passthrough".`,
      );
    }
    const main = upstreamOf(o.targetUrl, o.lookup, 'target');
    const routes = o.routes.map((url, n) => upstreamOf(url, o.lookup, `route ${n}`));
    this.#logger = o.logger;
    this.#host = o.host;
    this.#port = o.port;
    this.#target = main.target;
    this.#routes = routes;
    this.#middlewareNames = o.middleware.map(middlewareName);
    this.#credentials = o.credentials;
    this.#dispatcher = main.dispatcher;
    this.#forwarder = createForwarder({
      ...main,
      pipeline: compose(o.middleware),
      logger: o.logger,
      idleTimeoutMs: o.idleTimeoutMs,
      maxBodyBytes: o.maxBodyBytes,
      budget: createBodyBudget(o.maxInFlightBytes),
      spend: o.spend,
      cassette: o.cassette,
    });
    const healthBody = Buffer.from(`${o.name} Proxy OK`);
    this.#server = http.createServer({ noDelay: true }, (request, response) => {
      if (isHealthCheck(request.method, request.url)) {
        response.writeHead(200, [
          'content-type',
          'text/plain; charset=utf-8',
          'content-length',
          String(healthBody.length),
          REFUSED_HEADER,
          String(this.#refused),
        ]);
        response.end(request.method === 'HEAD' ? undefined : healthBody);
        return;
      }
      let url = originForm(request.url ?? '/');
      if (this.#credentials.length > 0) {
        const access = checkAccess({ url, header: request.headers[CREDENTIAL_HEADER] }, this.#credentials);
        if (!access.ok) {
          this.#refuse(request, response, access.failure);
          return;
        }
        url = access.url;
      }
      // The proxy's own credential is not the provider's: it never leaves.
      delete request.headers[CREDENTIAL_HEADER];
      // Who calls (`/c/codon.<id>`), when its base URL says: for the cassette, never the provider.
      const named = url.startsWith('/c/') ? takeCaller(url) : undefined;
      if (named) url = named.url;
      const route = routes.length > 0 ? ROUTE_PATH.exec(url) : null;
      const upstream = route ? routes[Number(route[1])] : undefined;
      const rest = route && upstream ? (route[2] ?? '') : undefined;
      const confined = confinePath(rest === undefined ? url : rest.startsWith('/') ? rest : `/${rest}`);
      if (!confined.ok) {
        const failure: ExchangeFailure = {
          code: 'PATH_OUTSIDE_PREFIX',
          status: 400,
          message: confined.message,
        };
        this.#refuse(request, response, failure, url);
        return;
      }
      this.#forwarder.handle(request, response, {
        upstream: upstream ?? main,
        url: confined.url,
        caller: named?.caller,
      });
    });
    this.#server.on('clientError', (error: NodeJS.ErrnoException, socket) => {
      // As Node's default handler, plus a log line: a reset is the agent leaving, not a bad request.
      if (error.code !== 'ECONNRESET' && socket.writable) {
        // Not the error itself: Node puts the raw request bytes (credentials too) in its rawPacket.
        this.#logger.warn({ err: errorForLog(error) }, '[PROXY] malformed request from agent');
        socket.end(
          `HTTP/1.1 ${CLIENT_ERROR_STATUS.get(error.code ?? '') ?? '400 Bad Request'}\r\nconnection: close\r\n\r\n`,
        );
        return;
      }
      socket.destroy();
    });
  }

  /** Requests refused so far (no credential, a wrong one, a path outside its prefix). */
  get refused(): number {
    return this.#refused;
  }

  /**
   * Answers a request the proxy will not forward, unread (so the connection closes), and counts it in
   * the log line and the health answer. The request-target goes to the log only once a credential
   * passed (`url`, without it): a refused credential is never logged.
   */
  #refuse(
    request: http.IncomingMessage,
    response: http.ServerResponse,
    failure: ExchangeFailure,
    url?: string,
  ): void {
    this.#refused += 1;
    this.#logger.warn(
      {
        code: failure.code,
        status: failure.status,
        method: request.method,
        ...(url === undefined ? {} : { url: redactUrl(url) }),
        remote: request.socket.remoteAddress,
        refused: this.#refused,
      },
      `[PROXY] refused a request (${failure.code}); ${this.#refused} refused so far`,
    );
    const body = anthropicErrorBody(failure);
    response.writeHead(failure.status, [
      'content-type',
      'application/json',
      'content-length',
      String(Buffer.byteLength(body)),
      'connection',
      'close',
    ]);
    response.end(body);
  }

  get url(): string | undefined {
    return this.#state.kind === 'listening' ? this.#state.url : undefined;
  }

  async start(): Promise<string> {
    if (this.#state.kind !== 'idle')
      throw new ProxyError('PROXY_LISTEN_FAILED', 'The proxy was already started.');
    const server = this.#server;
    try {
      await new Promise<void>((resolve, reject) => {
        const onError = (error: Error) => {
          server.off('listening', onListening);
          reject(error);
        };
        const onListening = () => {
          server.off('error', onError);
          resolve();
        };
        server.once('error', onError);
        server.once('listening', onListening);
        server.listen(this.#port, this.#host);
      });
    } catch (error) {
      this.#state = { kind: 'stopped' };
      this.#destroyAgents();
      const code = error instanceof Error && 'code' in error ? error.code : undefined;
      if (code === 'EADDRINUSE') {
        throw new ProxyError(
          'PROXY_PORT_IN_USE',
          `Proxy port ${this.#port} on ${this.#host} is already in use. The proxy listens on the main ` +
            'server port + 1: free that port or start the server with another --port.',
          { cause: error },
        );
      }
      throw new ProxyError(
        'PROXY_LISTEN_FAILED',
        `The proxy could not listen on ${this.#host}:${this.#port}.`,
        {
          cause: error,
        },
      );
    }
    // After listening, a server error (say, out of file descriptors on accept) is logged, not thrown.
    server.on('error', (error) =>
      this.#logger.error({ err: errorForLog(error) }, '[PROXY-ERROR] server error'),
    );
    const address = server.address();
    const port = typeof address === 'object' && address !== null ? address.port : this.#port;
    const host = this.#host.includes(':') ? `[${this.#host}]` : this.#host;
    const url = `http://${host}:${port}`;
    this.#state = { kind: 'listening', url };
    const target = this.#target;
    this.#logger.info(
      {
        url,
        target: `${target.protocol}//${target.host}${target.pathPrefix}`,
        middleware: this.#middlewareNames,
        ...(this.#routes.length > 0
          ? { routes: this.#routes.map(({ target: t }) => `${t.protocol}//${t.host}${t.pathPrefix}`) }
          : {}),
      },
      '[PROXY] listening',
    );
    return url;
  }

  #destroyAgents(): void {
    // Exchanges were ended first (abortAll), so nothing waits on these pools.
    for (const dispatcher of [this.#dispatcher, ...this.#routes.map((route) => route.dispatcher)]) {
      dispatcher.destroy().catch(() => {});
    }
  }

  async stop(): Promise<void> {
    if (this.#state.kind !== 'listening') {
      this.#state = { kind: 'stopped' };
      return;
    }
    this.#state = { kind: 'stopped' };
    const closed = once(this.#server, 'close');
    this.#server.close();
    this.#forwarder.abortAll();
    this.#server.closeIdleConnections();
    // Answers written by abortAll need a moment to flush; anything still open after it is cut.
    setImmediate(() => this.#server.closeAllConnections());
    this.#destroyAgents();
    await closed;
    this.#logger.info('[PROXY] stopped');
  }
}
