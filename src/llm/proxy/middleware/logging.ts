import type { Logger } from 'pino';
import { redactUrl } from '../../../platform/credentials/log-safe.ts';
import type { Middleware } from '../types.ts';
import { summarizeVendorRequest } from '../vendor-summary.ts';

export const LOGGING_TAG = '[LOGGING-MIDDLEWARE]';
const REQUEST_MSG = `${LOGGING_TAG} request`;
const RESPONSE_MSG = `${LOGGING_TAG} response`;

export type LoggingOptions = {
  /**
   * [logBodies=false] Also log the first `previewBytes` of bodies that are not Messages requests
   * (count_tokens, malformed ones). They hold prompt text, so this is for debugging only.
   */
  logBodies?: boolean;
  /** [previewBytes=200] */
  previewBytes?: number;
};

/** A bounded, readable glimpse of a body: raw bodies never go to the log whole. */
export function bodyPreview(body: Buffer, limit: number): string | undefined {
  if (body.length === 0) return undefined;
  if (body.length <= limit) return body.toString('utf8');
  return `${body.toString('utf8', 0, limit)}... (${body.length} bytes)`;
}

/**
 * Logs each request on arrival and its response status, tagged [LOGGING-MIDDLEWARE]. Provider-format
 * requests log what was asked (model, message count, max_tokens, stream); others their size, and a
 * preview of their body only with `logBodies`. URLs are logged with credential-like query values
 * redacted; headers never. It only reads, so it is marked read-only and the agent's bytes are
 * forwarded untouched.
 */
export function createLoggingMiddleware(logger: Logger, options: LoggingOptions = {}): Middleware {
  const previewBytes = options.previewBytes ?? 200;
  const logBodies = options.logBodies ?? false;
  return {
    name: 'LoggingMiddleware',
    readOnly: true,
    // Synchronous on purpose: the pipeline then runs without a promise or a microtask turn.
    request: (request, context) => {
      // The proxy's summary reads the body without parsing it; a request a middleware before this
      // one replaced is summed up from what it carries.
      const vendor =
        request === context.request && context.vendorSummary
          ? context.vendorSummary()
          : request.vendorRequestData && summarizeVendorRequest(request.vendorRequestData);
      const url = redactUrl(request.url);
      // One literal a line, no spreads: the same fields in the same order, built once an exchange.
      if (vendor) {
        const { model, messages, max_tokens, stream } = vendor;
        logger.info(
          { exchange: context.id, method: request.method, url, model, messages, max_tokens, stream },
          REQUEST_MSG,
        );
      } else {
        const body = logBodies ? bodyPreview(context.rawBody, previewBytes) : undefined;
        logger.info(
          { exchange: context.id, method: request.method, url, bytes: context.rawBody.length, body },
          REQUEST_MSG,
        );
      }
      return request;
    },
    response: (response, context) => {
      logger.info(
        {
          exchange: context.id,
          method: context.request.method,
          url: redactUrl(context.request.url),
          status: response.status,
        },
        RESPONSE_MSG,
      );
      return response;
    },
  };
}
