/**
 * The scripted provider: an HTTP server answering model requests from a script, so plans run offline.
 * It speaks the Anthropic Messages API (`POST /v1/messages`, `POST /v1/messages/count_tokens`), the
 * OpenAI Responses API (`POST /v1/responses`) and the Gemini API (`POST /v1beta/models/<model>:
 * generateContent`, `:streamGenerateContent`, `:countTokens`), routed by path (wire-apis.ts); one
 * script serves them all. Everything it receives is kept in `requests` for tests to inspect.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ApiErrorBody } from '../schemas.ts';
import { type IdSource, randomIds } from './ids.ts';
import { resolveMcpTools } from './mcp-tool.ts';
import type { RequestHeaders } from './request-view.ts';
import { apiError } from './response-builder.ts';
import { parseScript } from './script-loader.ts';
import {
  createScriptPlayer,
  type PlayedTurn,
  type TrackLimits,
  type TrackPositions,
} from './script-player.ts';
import type { PlayedReply, Script, ScriptInput, WireApi } from './script-schema.ts';
import {
  type Exchange,
  type JsonReply,
  notFoundReply,
  ROUTES_HINT,
  routeOf,
  WIRE_APIS,
} from './wire-apis.ts';

export type RecordedRequest = {
  method: string;
  /** Path and query as received, e.g. `/v1/messages?beta=true`. */
  url: string;
  headers: RequestHeaders;
  /** Parsed JSON body, or the raw text when it was not JSON. */
  body: unknown;
  /** The API the path belongs to; null for paths no API here serves. */
  api: WireApi | null;
  /** Track and position that answered; null for requests no turn answered (errors, other routes). */
  track: string | null;
  position: number | null;
  receivedAt: string;
};

export type MockProviderOptions = {
  /** A script (validated here; an invalid one throws an Error with code SCRIPT_INVALID). */
  script: Script | ScriptInput;
  /** [host='127.0.0.1'] */
  host?: string;
  /** [port=0] 0 picks a free port. */
  port?: number;
  /** [ids=randomIds] */
  ids?: IdSource;
  /** [maxBodyBytes=33554432] Larger bodies get 413. */
  maxBodyBytes?: number;
  /** Called for every request once it is recorded (the CLI logs a line from it). */
  onRequest?: (request: RecordedRequest) => void;
  /** Where each track starts (a resumed execution's saved positions); absent, at its first turn. */
  positions?: TrackPositions;
  /** The resets of the usage limits tracks were held at (saved with the positions). */
  limits?: TrackLimits;
  /** Called with every track's position (and held limits) each time a turn is handed out, before it is answered. */
  onPositions?: (positions: TrackPositions, limits: TrackLimits) => void;
};

export type MockProvider = {
  url: string;
  host: string;
  port: number;
  requests: RecordedRequest[];
  /** Ends stalls and open streams, closes every connection, stops listening. */
  stop(): Promise<void>;
};

class ScriptInvalidError extends Error {
  readonly code = 'SCRIPT_INVALID';
}

export async function startMockProvider(options: MockProviderOptions): Promise<MockProvider> {
  const parsed = parseScript(options.script);
  if (!parsed.ok) throw new ScriptInvalidError(parsed.error.message);
  const player = createScriptPlayer(parsed.script, options.positions, Date.now, options.limits);
  const ids = options.ids ?? randomIds;
  const maxBodyBytes = options.maxBodyBytes ?? 32 * 1024 * 1024;
  const host = options.host ?? '127.0.0.1';
  const requests: RecordedRequest[] = [];
  // Aborted on stop(), so delays, stalls and streams end at once.
  const lifetime = new AbortController();

  const record = (req: IncomingMessage, body: unknown, api: WireApi | null, played?: PlayedTurn): void => {
    const entry: RecordedRequest = {
      method: req.method ?? 'GET',
      url: req.url ?? '/',
      headers: req.headers,
      body,
      api,
      track: played?.track ?? null,
      position: played?.position ?? null,
      receivedAt: new Date().toISOString(),
    };
    requests.push(entry);
    options.onRequest?.(entry);
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? '/', 'http://x');
    const path = url.pathname.replace(/\/+$/, '') || '/';
    const method = req.method ?? 'GET';
    const requestId = ids.requestId();
    res.setHeader('request-id', requestId);

    if ((method === 'GET' || method === 'HEAD') && path === '/') {
      record(req, undefined, null);
      return sendJson(res, 200, { name: 'ribosome mock-provider', message: ROUTES_HINT });
    }
    const route = routeOf(method, path, url.searchParams);
    if (!route) {
      record(req, undefined, null);
      return sendReply(res, notFoundReply(method, path));
    }
    const wire = WIRE_APIS[route.api];

    const raw = await readBody(req, maxBodyBytes);
    if (raw === null) {
      record(req, undefined, route.api);
      return sendReply(res, wire.error(413, `Request body exceeds ${maxBodyBytes} bytes.`));
    }
    let body: unknown;
    try {
      body = JSON.parse(raw);
    } catch {
      record(req, raw, route.api);
      return sendReply(res, wire.error(400, 'The request body is not valid JSON.'));
    }

    if (route.kind === 'count') {
      record(req, body, route.api);
      return sendReply(res, wire.count?.(body) ?? notFoundReply(method, path));
    }
    const accepted = wire.accept(body, { route, headers: req.headers, ids, requestId });
    if (!accepted.ok) {
      record(req, body, route.api);
      return sendReply(res, accepted.reply);
    }
    const played = player.next(accepted.exchange.view);
    if (played.position !== null) options.onPositions?.(player.positions(), player.limits());
    record(req, body, route.api, played);
    // A call of an MCP tool goes out under the name this request's agent gives the tool.
    const turn =
      'usageLimit' in played.turn ? played.turn : resolveMcpTools(played.turn, accepted.exchange.view);
    await play(turn, accepted.exchange, res);
  };

  const play = async (turn: PlayedReply, exchange: Exchange, res: ServerResponse): Promise<void> => {
    const gone = new AbortController(); // the client left or the provider stops
    const onClose = () => gone.abort();
    res.on('close', onClose);
    lifetime.signal.addEventListener('abort', onClose, { once: true });
    const signal = gone.signal;
    try {
      if (turn.delayMs && !(await wait(turn.delayMs, signal))) return;
      if ('stall' in turn) return await forever(signal);
      if ('usageLimit' in turn) return sendReply(res, exchange.usageLimit(turn, Date.now()));
      if ('error' in turn && !(turn.error.inStream && exchange.stream)) {
        return sendReply(res, exchange.failure(turn));
      }
      if ('content' in turn && !exchange.stream) {
        if (turn.stallAfterEvents !== undefined) return await forever(signal);
        return sendJson(res, 200, exchange.reply(turn));
      }
      const frames = 'error' in turn ? exchange.failureFrames(turn) : exchange.frames(turn);
      const stallAt = 'content' in turn ? turn.stallAfterEvents : undefined;
      res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
      res.flushHeaders();
      for (const [index, frame] of frames.entries()) {
        if (index === stallAt) return await forever(signal);
        if (signal.aborted) return;
        res.write(frame);
        if (turn.chunkDelayMs && index < frames.length - 1 && !(await wait(turn.chunkDelayMs, signal)))
          return;
      }
      res.end();
    } finally {
      res.off('close', onClose);
      lifetime.signal.removeEventListener('abort', onClose);
      if (!res.writableEnded && signal.aborted) res.destroy();
    }
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (res.headersSent) return void res.destroy();
      const detail = err instanceof Error ? err.message : String(err);
      sendJson(res, 500, apiError('api_error', `mock-provider failed: ${detail}`));
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : (options.port ?? 0);
  const urlHost = host.includes(':') ? `[${host}]` : host;

  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopping ??= new Promise<void>((resolve) => {
      lifetime.abort();
      server.close(() => resolve());
      server.closeAllConnections();
    });
    return stopping;
  };

  return { url: `http://${urlHost}:${port}`, host, port, requests, stop };
}

function sendReply(res: ServerResponse, reply: JsonReply): void {
  sendJson(res, reply.status, reply.body, reply.headers);
}

/** A JSON reply with its length (also used by the tests' own providers). */
export function sendJson(
  res: ServerResponse,
  status: number,
  body: ApiErrorBody | object,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
    ...headers,
  });
  res.end(text);
}

/** The body as text, or null when it exceeds `limit` (read to the end anyway, so the 413 arrives). */
async function readBody(req: IncomingMessage, limit: number): Promise<string | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk));
    size += buffer.length;
    if (size <= limit) chunks.push(buffer);
  }
  return size > limit ? null : Buffer.concat(chunks).toString('utf8');
}

/** Resolves true after `ms`, or false as soon as the signal aborts. */
async function wait(ms: number, signal: AbortSignal): Promise<boolean> {
  try {
    await sleep(ms, undefined, { signal });
    return true;
  } catch {
    return false;
  }
}

function forever(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    signal.addEventListener('abort', () => resolve(), { once: true });
  });
}
