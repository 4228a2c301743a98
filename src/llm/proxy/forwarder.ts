import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import type { Dispatcher } from 'undici';
import { BUSY_RETRY_AFTER_SECONDS } from '../../plan/config/proxy-defaults.ts';
import { errorForLog, redactUrl } from '../../platform/credentials/log-safe.ts';
import { type Target, targetPath } from '../../platform/http/target.ts';
import type { Caller } from '../cassette/caller.ts';
import type { CassetteHooks } from '../cassette/hooks.ts';
import type { ExchangeTap } from '../cassette/writer.ts';
import { createAnswerRelay } from './answer-relay.ts';
import type { BodyBudget, BodyHold } from './body-budget.ts';
import { classifyUpstreamError, isInvalidRequest, isRetriableOnReusedConnection } from './classify-error.ts';
import type { MiddlewareFailure, Pipeline } from './compose.ts';
import { anthropicErrorBody, type ExchangeFailure } from './errors.ts';
import { ReceivedRequest } from './exchange-objects.ts';
import { hasBodyFraming, toHeaderMap, upstreamRequestHeaders } from './headers.ts';
import { LazyVendor } from './lazy-vendor.ts';
import { LiveList, type Slotted } from './live-list.ts';
import { readBody } from './read-body.ts';
import type { SpendCheck, SpendMeter } from './spend-check.ts';
import type { ExchangeContext, ProxyRequest } from './types.ts';
import { isCallCancelled, type Outgoing, UpstreamCall } from './upstream-call.ts';
import { isMessagesRequest } from './vendor-request.ts';

/** Where exchanges are forwarded: a provider and the (undici) pool of kept-alive sockets to reach it. */
export type Upstream = {
  target: Target;
  dispatcher: Dispatcher;
};

export type ForwarderOptions = Upstream & {
  pipeline: Pipeline;
  logger: Logger;
  idleTimeoutMs: number;
  maxBodyBytes: number;
  /** Request bytes held across all exchanges. */
  budget: BodyBudget;
  /** The run's budget check of model requests, after all middleware (docs/unattended.md#budgets). */
  spend?: SpendCheck | undefined;
  /** Recording or replay (docs/testing-plans.md): consulted last, on the bytes that would go out. */
  cassette?: CassetteHooks | undefined;
};

export type Forwarder = {
  /**
   * Forwards one exchange to the default upstream, or to `route.upstream` with `route.url` (the
   * request-target without its route prefix) as the path middleware sees and the target gets.
   */
  handle(
    request: IncomingMessage,
    response: ServerResponse,
    route?: { upstream?: Upstream | undefined; url: string; caller?: Caller | undefined },
  ): void;
  /** Ends every exchange in flight: unsent answers get a 503 error, streams being relayed are cut. */
  abortAll(): void;
};

type Exchange = Slotted & {
  id: number;
  response: ServerResponse;
  upstreamTo: Upstream;
  /** The request line, for error logs before the body is read. */
  incoming: { method?: string; url?: string };
  /** The request as received, then as forwarded; for error logs. */
  request?: ProxyRequest;
  /** Its body's share of the in-flight budget, given back when the exchange ends. */
  hold: BodyHold;
  /** The request to the target, cancelled when the exchange ends first. */
  upstream?: UpstreamCall;
  /** The money the budget holds for this exchange, settled when it ends. */
  meter?: SpendMeter;
  /** Who sent it, when its base URL said (recording and replay). */
  caller?: Caller | undefined;
  /** Records the answer into the cassette (recording). */
  tap?: ExchangeTap;
  agentGone: boolean;
};

/**
 * Only vendorRequestData may change the body (spec 8), and only a Messages request's: the agent's bytes
 * unless a middleware read or set it on the request as received, or returned another object carrying
 * it; then the body is rebuilt from it (read and left alone too: an edit in place is not seen).
 */
function bodyToSend(vendor: LazyVendor, received: ProxyRequest, sent: ProxyRequest, raw: Buffer): Buffer {
  if (sent === received && !vendor.touched) return raw;
  const edited = sent.vendorRequestData;
  if (!edited || !vendor.original()) return raw;
  return Buffer.from(JSON.stringify(edited));
}

/** Answers an exchange with an Anthropic-style error, or cuts the stream when headers are already out. */
function answerFailure(response: ServerResponse, failure: ExchangeFailure, closeConnection = false): void {
  if (response.writableEnded || response.destroyed) return;
  if (response.headersSent) {
    response.destroy();
    return;
  }
  const body = anthropicErrorBody(failure);
  const headers: string[] = [
    'content-type',
    'application/json',
    'content-length',
    String(Buffer.byteLength(body)),
  ];
  if (failure.retryAfterSeconds !== undefined) headers.push('retry-after', String(failure.retryAfterSeconds));
  if (failure.final) headers.push('x-should-retry', 'false');
  if (closeConnection) headers.push('connection', 'close');
  response.writeHead(failure.status, headers);
  response.end(body);
}

/** The I/O shell of the pipeline: reads the agent's request, runs middleware, relays the target's answer. */
export function createForwarder(options: ForwarderOptions): Forwarder {
  const { pipeline, logger, idleTimeoutMs, maxBodyBytes, budget, spend, cassette } = options;
  const defaultUpstream: Upstream = { target: options.target, dispatcher: options.dispatcher };
  const labelOf = (exchange: Exchange) =>
    `${exchange.upstreamTo.target.protocol}//${exchange.upstreamTo.target.host}`;
  const active = new LiveList<Exchange>();
  let sequence = 0;

  function fail(exchange: Exchange, failure: ExchangeFailure, cause?: unknown, closeConnection = false) {
    const { method, url } = exchange.request ?? exchange.incoming;
    logger.error(
      {
        exchange: exchange.id,
        code: failure.code,
        status: failure.status,
        method,
        url: url === undefined ? undefined : redactUrl(url),
        err: cause === undefined ? undefined : errorForLog(cause),
      },
      `[PROXY-ERROR] ${failure.message}`,
    );
    answerFailure(exchange.response, failure, closeConnection);
  }

  /** Node refused what middleware produced (a header with a newline, a status of 1000) or a bug. */
  function internalFailure(exchange: Exchange, error: unknown) {
    const reason = error instanceof Error ? error.message : String(error);
    fail(
      exchange,
      { code: 'PROXY_INTERNAL', status: 500, message: `Proxy: internal error: ${reason}` },
      error,
    );
  }

  /** Why a body was not taken: past the size of one request, or past what all requests may hold. */
  function refusal(reason: 'too-large' | 'over-budget'): ExchangeFailure {
    if (reason === 'too-large') {
      const message = `Proxy: the request body is larger than the limit of ${maxBodyBytes} bytes.`;
      return { code: 'BODY_TOO_LARGE', status: 413, message };
    }
    return {
      code: 'PROXY_BUSY',
      status: 503,
      message:
        `Proxy: request bodies in flight would pass the limit of ${budget.limit} bytes; ` +
        `retry in ${BUSY_RETRY_AFTER_SECONDS} s.`,
      retryAfterSeconds: BUSY_RETRY_AFTER_SECONDS,
    };
  }

  function middlewareFailure(error: MiddlewareFailure): ExchangeFailure {
    const reason = error.cause instanceof Error ? error.cause.message : String(error.cause);
    return {
      code: 'MIDDLEWARE_FAILED',
      status: 500,
      message: `Proxy: ${error.phase} middleware ${error.middleware} failed: ${reason}`,
    };
  }

  const { answered, relay } = createAnswerRelay<Exchange>({
    pipeline,
    fail,
    internalFailure,
    middlewareFailure,
    onBodyError,
  });

  async function forward(exchange: Exchange, incoming: IncomingMessage) {
    const read = await readBody(incoming, { limit: maxBodyBytes, hold: exchange.hold });
    if (!read.ok) {
      if (read.reason === 'aborted') return;
      // The rest of the body stays unread, so this connection cannot carry another request.
      fail(exchange, refusal(read.reason), undefined, true);
      return;
    }
    const raw = read.body;
    const method = incoming.method ?? 'GET';
    const url = exchange.incoming.url ?? '/';
    const { target } = exchange.upstreamTo;
    const headers = toHeaderMap(incoming.headers);
    const vendor = isMessagesRequest(method, url) ? new LazyVendor(raw) : undefined;
    const received = new ReceivedRequest(method, url, headers, raw, vendor);
    exchange.request = received;
    const context: ExchangeContext = vendor
      ? { id: exchange.id, rawBody: raw, request: received, vendorSummary: () => vendor.summary() }
      : { id: exchange.id, rawBody: raw, request: received };

    // Awaited only when a middleware answered with a promise: the proxy's own answer at once.
    const pending = pipeline.request(received, context);
    const step = pending instanceof Promise ? await pending : pending;
    if (!step.ok) {
      fail(exchange, middlewareFailure(step.error), step.error.cause);
      return;
    }
    if (exchange.agentGone) return;
    const sent = step.value;
    exchange.request = sent;
    context.request = sent;
    const edited = vendor && pipeline.mayChangeRequest ? bodyToSend(vendor, received, sent, raw) : raw;
    // Checked last, on the bytes that go out: a middleware may have raised the output limit.
    const spent = spend?.(sent.method, sent.url, edited);
    if (spent?.kind === 'refuse') {
      fail(exchange, spent.failure);
      return;
    }
    if (spent) exchange.meter = spent.meter;
    const body = spent?.body ?? edited;
    const taped = cassette?.exchange({ caller: exchange.caller, method: sent.method, url: sent.url, body });
    if (taped?.kind === 'refuse') {
      exchange.meter?.end('unsent');
      fail(exchange, { code: 'REPLAY_MISS', status: 400, message: taped.message, final: true });
      return;
    }
    if (taped?.kind === 'answer') {
      relay(exchange, context, taped.answer).catch((error: unknown) => internalFailure(exchange, error));
      return;
    }
    if (taped?.tap) exchange.tap = taped.tap;
    const outgoing: Outgoing = {
      method: sent.method,
      path: targetPath(target, sent.url),
      headers: upstreamRequestHeaders(
        sent.headers,
        target.host,
        body.length > 0 || hasBodyFraming(headers) ? body.length : undefined,
      ),
      body,
    };
    sendUpstream(exchange, context, outgoing, false);
  }

  function sendUpstream(exchange: Exchange, context: ExchangeContext, outgoing: Outgoing, isRetry: boolean) {
    exchange.upstream = new UpstreamCall(exchange.upstreamTo.dispatcher, outgoing, idleTimeoutMs, {
      head: (call, status, headers) => answered(exchange, context, call, status, headers),
      failed: (error, headed) => {
        if (headed) {
          onBodyError(exchange, error);
          return;
        }
        if (exchange.agentGone) return;
        // A kept-alive socket that the target closed while idle fails at once on reuse: nothing reached
        // the target, so one fresh attempt is safe.
        if (!isRetry && isRetriableOnReusedConnection(error)) {
          sendUpstream(exchange, context, outgoing, true);
          return;
        }
        // A request undici refuses to write (a header with a newline): what middleware made, not the target.
        if (isInvalidRequest(error)) {
          exchange.meter?.end('unsent');
          internalFailure(exchange, error);
          return;
        }
        const failure = classifyUpstreamError(error, labelOf(exchange));
        // Only a target never reached surely did no work to pay for.
        const unsent = failure.code === 'UPSTREAM_UNREACHABLE' || failure.code === 'UPSTREAM_DNS_FAILURE';
        exchange.meter?.end(unsent ? 'unsent' : 'cut');
        fail(exchange, failure, error);
      },
    });
  }

  /** A relayed body failed: before the headers went out the agent gets an error answer, after it a cut stream. */
  function onBodyError(exchange: Exchange, error: unknown) {
    // The proxy cut it (the agent left, a middleware failed): said where that happened.
    if (exchange.agentGone || isCallCancelled(error)) return;
    const failure = classifyUpstreamError(error, labelOf(exchange));
    const midStream = exchange.response.headersSent;
    fail(exchange, midStream ? { ...failure, message: `${failure.message} Stream cut.` } : failure, error);
  }

  return {
    handle(incoming, response, route) {
      const caller = route?.caller;
      const exchange: Exchange = {
        slot: -1,
        id: ++sequence,
        response,
        upstreamTo: route?.upstream ?? defaultUpstream,
        incoming: { method: incoming.method, url: route ? route.url : incoming.url },
        hold: budget.open(),
        caller,
        agentGone: false,
      };
      active.add(exchange);
      response.once('close', () => {
        active.remove(exchange);
        // The exchange is over and with it the need for its body (and, unless its answer ended
        // whole, what the budget holds for it stays held).
        exchange.hold.release();
        exchange.meter?.end('cut');
        if (response.writableFinished) return;
        // The agent went away before the answer was complete: stop the target's work too.
        exchange.agentGone = true;
        if (exchange.upstream) {
          exchange.upstream.cancel();
          logger.info({ exchange: exchange.id }, '[PROXY] agent disconnected; upstream request aborted');
        }
      });
      forward(exchange, incoming).catch((error: unknown) => internalFailure(exchange, error));
    },
    abortAll() {
      for (const exchange of active.snapshot()) {
        exchange.agentGone = true;
        exchange.upstream?.cancel();
        answerFailure(
          exchange.response,
          { code: 'PROXY_STOPPING', status: 503, message: 'Proxy: shutting down.' },
          true,
        );
      }
    },
  };
}
