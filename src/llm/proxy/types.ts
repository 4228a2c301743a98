import type { Readable } from 'node:stream';
import { z } from 'zod';
import type { VendorApiRequest } from './vendor-request.ts';
import type { VendorSummary } from './vendor-summary.ts';

/** Lower-case names; repeats joined with ", " (an untouched set-cookie goes back out as its list). */
export type ProxyHeaders = Record<string, string>;

/**
 * The request object of spec 2.5. `body` is the agent's raw body decoded as UTF-8, for reading only.
 * `vendorRequestData` is parsed when first read: a Messages request no middleware reads (or sets) it
 * of is forwarded with the agent's bytes untouched.
 */
export type ProxyRequest = {
  method: string;
  url: string;
  headers: ProxyHeaders;
  readonly body?: string;
  vendorRequestData?: VendorApiRequest;
};

/** The response object of spec 2.5; a stream body can be read once (see `duplicateBody`). */
export type ProxyResponse = {
  status: number;
  headers: ProxyHeaders;
  body?: string | Uint8Array | Readable;
};

/** What a handler gets beside the object it transforms. */
export type ExchangeContext = {
  /** Sequence number of the exchange, to tie log lines together. */
  readonly id: number;
  /** The agent's body bytes; read them instead of `body` to skip decoding. */
  readonly rawBody: Buffer;
  /** In request handlers the request as received; in response handlers the request as forwarded. */
  request: ProxyRequest;
  /**
   * For `request` as received: model, message count, max_tokens and stream of a Messages request,
   * without parsing a body no middleware parsed yet (LoggingMiddleware's use); undefined when the
   * body is no Messages request.
   */
  readonly vendorSummary?: () => VendorSummary | undefined;
};

// A handler may return nothing to keep the object it was given (handy after an in-place edit).
export type RequestHandler = (
  request: ProxyRequest,
  context: ExchangeContext,
) => Promise<ProxyRequest | undefined> | ProxyRequest | undefined;
export type ResponseHandler = (
  response: ProxyResponse,
  context: ExchangeContext,
) => Promise<ProxyResponse | undefined> | ProxyResponse | undefined;

const handler = <T>() => z.custom<T>((value) => typeof value === 'function').optional();

/** Shape check for middleware loaded from user modules; the object itself is used, not a parsed copy. */
export const MiddlewareSchema = z.object({
  name: z.string().optional(),
  /** Promises never to change the request, so the proxy can forward the agent's bytes untouched. */
  readOnly: z.boolean().optional(),
  request: handler<RequestHandler>(),
  response: handler<ResponseHandler>(),
});

export type Middleware = z.infer<typeof MiddlewareSchema>;
