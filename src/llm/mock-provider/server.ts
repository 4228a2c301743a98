/**
 * The scripted Anthropic-compatible provider: an HTTP server answering `POST /v1/messages` (plain or
 * streamed) and `POST /v1/messages/count_tokens` from a script, so plans run offline. Everything it
 * receives is kept in `requests` for tests to inspect.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ApiErrorBody } from '../schemas.ts';
import { type IdSource, randomIds } from './ids.ts';
import {
  CountTokensRequestSchema,
  describeIssue,
  type RequestHeaders,
  viewOf,
  type WireRequest,
  WireRequestSchema,
} from './request-view.ts';
import {
  apiError,
  buildMessage,
  encodeSse,
  errorBodyOf,
  estimateInputTokens,
  streamEventsOf,
} from './response-builder.ts';
import { parseScript } from './script-loader.ts';
import { createScriptPlayer, type PlayedTurn } from './script-player.ts';
import type { Script, ScriptInput, Turn } from './script-schema.ts';

export type RecordedRequest = {
  method: string;
  /** Path and query as received, e.g. `/v1/messages?beta=true`. */
  url: string;
  headers: RequestHeaders;
  /** Parsed JSON body, or the raw text when it was not JSON. */
  body: unknown;
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

const ROUTES_HINT =
  'This scripted provider serves POST /v1/messages and POST /v1/messages/count_tokens (Anthropic Messages API).';

export async function startMockProvider(options: MockProviderOptions): Promise<MockProvider> {
  const parsed = parseScript(options.script);
  if (!parsed.ok) throw new ScriptInvalidError(parsed.error.message);
  const player = createScriptPlayer(parsed.script);
  const ids = options.ids ?? randomIds;
  const maxBodyBytes = options.maxBodyBytes ?? 32 * 1024 * 1024;
  const host = options.host ?? '127.0.0.1';
  const requests: RecordedRequest[] = [];
  // Aborted on stop(), so delays, stalls and streams end at once.
  const lifetime = new AbortController();

  const record = (req: IncomingMessage, body: unknown, played?: PlayedTurn): void => {
    const entry: RecordedRequest = {
      method: req.method ?? 'GET',
      url: req.url ?? '/',
      headers: req.headers,
      body,
      track: played?.track ?? null,
      position: played?.position ?? null,
      receivedAt: new Date().toISOString(),
    };
    requests.push(entry);
    options.onRequest?.(entry);
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const path = new URL(req.url ?? '/', 'http://x').pathname.replace(/\/+$/, '') || '/';
    const requestId = ids.requestId();
    res.setHeader('request-id', requestId);

    if ((req.method === 'GET' || req.method === 'HEAD') && path === '/') {
      record(req, undefined);
      return sendJson(res, 200, { name: 'ribosome mock-provider', message: ROUTES_HINT });
    }
    const isMessages = path === '/v1/messages';
    const isCount = path === '/v1/messages/count_tokens';
    if (req.method !== 'POST' || (!isMessages && !isCount)) {
      record(req, undefined);
      return sendJson(
        res,
        404,
        apiError('not_found_error', `No route for ${req.method} ${path}. ${ROUTES_HINT}`),
      );
    }

    const raw = await readBody(req, maxBodyBytes);
    if (raw === null) {
      record(req, undefined);
      return sendJson(res, 413, apiError('request_too_large', `Request body exceeds ${maxBodyBytes} bytes.`));
    }
    let body: unknown;
    try {
      body = JSON.parse(raw);
    } catch {
      record(req, raw);
      return sendJson(res, 400, apiError('invalid_request_error', 'The request body is not valid JSON.'));
    }

    if (isCount) {
      record(req, body);
      const count = CountTokensRequestSchema.safeParse(body);
      if (!count.success)
        return sendJson(res, 400, apiError('invalid_request_error', describeIssue(count.error)));
      return sendJson(res, 200, { input_tokens: estimateInputTokens(count.data) });
    }

    const request = WireRequestSchema.safeParse(body);
    if (!request.success) {
      record(req, body);
      return sendJson(res, 400, apiError('invalid_request_error', describeIssue(request.error)));
    }
    const played = player.next(viewOf(request.data, req.headers));
    record(req, body, played);
    await play(played.turn, request.data, res, requestId);
  };

  const play = async (
    turn: Turn,
    request: WireRequest,
    res: ServerResponse,
    requestId: string,
  ): Promise<void> => {
    const gone = new AbortController(); // the client left or the provider stops
    const onClose = () => gone.abort();
    res.on('close', onClose);
    lifetime.signal.addEventListener('abort', onClose, { once: true });
    const signal = gone.signal;
    try {
      if (turn.delayMs && !(await wait(turn.delayMs, signal))) return;
      if ('stall' in turn) return await forever(signal);
      if ('error' in turn) {
        const headers: Record<string, string> = {};
        if (turn.error.retryAfter !== undefined) headers['retry-after'] = String(turn.error.retryAfter);
        return sendJson(res, turn.error.status, errorBodyOf(turn, requestId), headers);
      }
      const message = buildMessage(turn, {
        model: request.model,
        inputTokens: estimateInputTokens(request),
        ids,
      });
      if (!request.stream) {
        if (turn.stallAfterEvents !== undefined) return await forever(signal);
        return sendJson(res, 200, message);
      }
      res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
      res.flushHeaders();
      const events = streamEventsOf(message);
      for (const [index, event] of events.entries()) {
        if (index === turn.stallAfterEvents) return await forever(signal);
        if (signal.aborted) return;
        res.write(encodeSse(event));
        if (turn.chunkDelayMs && index < events.length - 1 && !(await wait(turn.chunkDelayMs, signal)))
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
