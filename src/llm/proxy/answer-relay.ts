import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import type { Dispatcher } from 'undici';
import type { LocalAnswer } from '../cassette/hooks.ts';
import type { ExchangeTap } from '../cassette/writer.ts';
import type { MiddlewareFailure, Pipeline } from './compose.ts';
import type { ExchangeFailure } from './errors.ts';
import { ReceivedAnswer } from './exchange-objects.ts';
import { clientResponseHeaders, toHeaderMap } from './headers.ts';
import type { SpendMeter } from './spend-check.ts';
import { isCopyOfBody, passAlong } from './tee.ts';
import type { ExchangeContext, ProxyResponse } from './types.ts';
import type { UpstreamCall } from './upstream-call.ts';

/** What relay needs of an answer: the target's (undici's) or one made from a cassette. */
type Answer = Pick<Dispatcher.ResponseData, 'statusCode' | 'headers'> & { body: Readable };

/** What the relay needs of an exchange. */
export type AnsweredExchange = {
  response: ServerResponse;
  /** The agent went away: nothing more is written to it. */
  agentGone: boolean;
  meter?: SpendMeter;
  tap?: ExchangeTap;
};

/** The forwarder's ways of ending an exchange that the relay calls. */
export type AnswerRelayDeps<E> = {
  pipeline: Pipeline;
  fail(exchange: E, failure: ExchangeFailure, cause?: unknown): void;
  /** Node refused what middleware produced, or a bug. */
  internalFailure(exchange: E, error: unknown): void;
  middlewareFailure(error: MiddlewareFailure): ExchangeFailure;
  /** The answer's body failed: an error answer before the head went out, a cut stream after. */
  onBodyError(exchange: E, error: unknown): void;
};

const EMPTY = Buffer.alloc(0);

/** The body bytes to send when middleware put bytes in (or none), `undefined` for a stream to relay. */
function replacedBytes(body: ProxyResponse['body']): Uint8Array | undefined {
  if (body === undefined) return EMPTY;
  if (typeof body === 'string') return Buffer.from(body);
  if (body instanceof Uint8Array) return body;
  return undefined;
}

/** The target's set-cookie headers as a list, when it sent any. */
function setCookieOf(headers: IncomingHttpHeaders | Record<string, string>): string[] | undefined {
  const cookies = headers['set-cookie'];
  return typeof cookies === 'string' ? [cookies] : cookies;
}

/** Target bodies up to this size that nobody reads are drained (the socket is kept); longer ones cut. */
const DRAIN_MAX_BYTES = 1024 * 1024;

/**
 * A target body no one reads (a middleware replaced it): drained when it is short, so its socket goes
 * back to the pool, else cut, so that the provider stops working on an answer nobody gets (a stream).
 * A recording drains it all: the cassette keeps the target's answer whole.
 */
function dropTargetBody(body: Readable, contentLength: string | undefined, recording: boolean): void {
  const length = contentLength === undefined ? Number.NaN : Number(contentLength);
  if (recording || length <= DRAIN_MAX_BYTES) body.resume();
  else body.destroy();
}

/** Tells the budget's meter the answer's status and content type (it reads usage from 2xx bodies). */
function meterAnswer(
  exchange: AnsweredExchange,
  status: number,
  headers: IncomingHttpHeaders | Record<string, string>,
) {
  const type = headers['content-type'];
  exchange.meter?.answer(status, Array.isArray(type) ? type[0] : type);
}

/** The target's answer with each chunk handed to the cassette on its way (recording). */
function recorded(answer: Answer, tap: ExchangeTap): Readable {
  tap.head(answer.statusCode, toHeaderMap(answer.headers));
  return passAlong(answer.body, {
    chunk: (bytes) => tap.chunk(bytes),
    end: () => tap.end('complete'),
    close: () => tap.end('cut'),
  });
}

/**
 * The answer's half of an exchange: response middleware, then the answer to the agent. `answered`
 * takes the target's answer head, `relay` a cassette's answer.
 */
export function createAnswerRelay<E extends AnsweredExchange>(deps: AnswerRelayDeps<E>) {
  const { pipeline, fail, internalFailure, middlewareFailure, onBodyError } = deps;

  /**
   * The target's answer head: response middleware, then the body written to the agent as it comes
   * (`direct`), or through a stream when a middleware read or replaced it, took its time, or the
   * exchange is recorded.
   */
  function answered(
    exchange: E,
    context: ExchangeContext,
    call: UpstreamCall,
    status: number,
    headers: IncomingHttpHeaders,
  ) {
    try {
      if (exchange.tap) {
        relay(exchange, context, { statusCode: status, headers, body: call.stream() }).catch(
          (error: unknown) => internalFailure(exchange, error),
        );
        return;
      }
      meterAnswer(exchange, status, headers);
      let stream: Readable | undefined;
      let relaying = false;
      const open = () => {
        if (stream) return stream;
        // Read after the middleware returned, once its bytes go straight to the agent: they are not
        // taken from the agent; the reader gets a stream that has ended.
        if (relaying) return Readable.from([]);
        stream = call.stream();
        // Listen at once: the target can fail while response middleware still runs.
        stream.on('error', (error) => onBodyError(exchange, error));
        return stream;
      };
      // The body is a stream only once a middleware reads it; one it sets replaces the target's.
      const received = new ReceivedAnswer(status, toHeaderMap(headers), open);
      const cookies = setCookieOf(headers);
      const pending = pipeline.response(received, context);
      if (pending instanceof Promise) {
        // The body's chunks wait in the stream (which holds the target back) while a middleware thinks.
        open();
        pending
          .then((step) => {
            if (!step.ok) return refuseAnswer(exchange, call, step.error);
            send(exchange, step.value, stream, cookies);
          })
          .catch((error: unknown) => {
            call.cancel();
            internalFailure(exchange, error);
          });
        return;
      }
      if (!pending.ok) return refuseAnswer(exchange, call, pending.error);
      const final = pending.value;
      if (final === received && ReceivedAnswer.untouched(received)) {
        relaying = true;
        direct(exchange, call, final, cookies);
      } else {
        // The target's body as a stream: relayed if it is the body sent, else drained or cut (send).
        send(exchange, final, open(), cookies);
      }
    } catch (error) {
      call.cancel();
      internalFailure(exchange, error);
    }
  }

  function refuseAnswer(exchange: E, call: UpstreamCall, error: MiddlewareFailure) {
    call.cancel();
    fail(exchange, middlewareFailure(error), error.cause);
  }

  /** The target's body, untouched by middleware, written to the agent chunk by chunk as it arrives. */
  function direct(exchange: E, call: UpstreamCall, final: ProxyResponse, setCookie?: string[]) {
    const response = exchange.response;
    if (exchange.agentGone || response.writableEnded) {
      call.cancel();
      return;
    }
    response.writeHead(final.status, clientResponseHeaders(final.headers, 'keep', setCookie));
    // Streams (SSE, chunked) go out as they come: send the headers now, not with the first chunk.
    if (final.headers['content-length'] === undefined) response.flushHeaders();
    const meter = exchange.meter;
    const resume = () => call.resume();
    call.sink = {
      chunk(bytes) {
        meter?.chunk(bytes);
        if (response.write(bytes)) return true;
        // The agent reads slower than the target sends: hold the target until it caught up.
        response.once('drain', resume);
        return false;
      },
      end() {
        meter?.end('complete');
        response.end();
      },
    };
  }

  /** A cassette's answer (replay), or the target's as a stream (recording): response middleware, then sent. */
  async function relay(exchange: E, context: ExchangeContext, answer: Answer | LocalAnswer) {
    const upstream = exchange.tap ? recorded(answer, exchange.tap) : answer.body;
    // Listen at once: the target can fail while response middleware still runs.
    upstream.on('error', (error) => onBodyError(exchange, error));
    meterAnswer(exchange, answer.statusCode, answer.headers);
    const received: ProxyResponse = {
      status: answer.statusCode,
      headers: toHeaderMap(answer.headers),
      body: upstream,
    };
    const pending = pipeline.response(received, context);
    const step = pending instanceof Promise ? await pending : pending;
    if (!step.ok) {
      upstream.destroy();
      fail(exchange, middlewareFailure(step.error), step.error.cause);
      return;
    }
    send(exchange, step.value, upstream, setCookieOf(answer.headers));
  }

  /**
   * Sends the answer as response middleware left it: new bytes, or a stream (`upstream`, the target's
   * body as a stream when one was made: relayed with its length, else drained).
   */
  function send(exchange: E, final: ProxyResponse, upstream: Readable | undefined, setCookie?: string[]) {
    const response = exchange.response;
    if (exchange.agentGone || response.writableEnded) {
      upstream?.destroy();
      return;
    }
    const body = final.body;
    if (upstream && body !== upstream && upstream.readableFlowing === null) {
      dropTargetBody(upstream, final.headers['content-length'], exchange.tap !== undefined);
    }
    const bytes = replacedBytes(body);
    if (bytes !== undefined) {
      response.writeHead(final.status, clientResponseHeaders(final.headers, bytes.length, setCookie));
      response.end(bytes);
      return;
    }
    if (!(body instanceof Readable)) {
      throw new TypeError('a response middleware set a body that is not a string, bytes or a Readable');
    }
    // A copy's failure is the target body's, heard on it already.
    if (body !== upstream && !isCopyOfBody(body)) body.on('error', (error) => onBodyError(exchange, error));
    if (body.destroyed) {
      // It failed during response middleware; onBodyError may have answered already.
      const message = 'Proxy: the response body failed before it could be relayed.';
      if (!response.writableEnded) fail(exchange, { code: 'UPSTREAM_FAILED', status: 502, message });
      return;
    }
    // A stream of other bytes than the target's has a length nobody knows: send it chunked.
    const length = body === upstream || isCopyOfBody(body) ? 'keep' : 'drop';
    // The budget reads the target's bytes as they go to the agent, when it can see them all; an
    // answer a middleware rewrote or read first leaves the request's worst case held.
    const meter = exchange.meter;
    if (meter && length === 'keep' && body.readableFlowing === null) {
      body.on('data', (chunk: Buffer) => meter.chunk(chunk));
      body.once('end', () => meter.end('complete'));
    }
    response.writeHead(final.status, clientResponseHeaders(final.headers, length, setCookie));
    // Streams (SSE, chunked) go out as they come: send the headers now, not with the first chunk.
    if (length === 'drop' || final.headers['content-length'] === undefined) response.flushHeaders();
    body.pipe(response);
  }

  return { answered, relay };
}
