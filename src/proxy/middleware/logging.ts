import type { Logger } from 'pino';
import type { Middleware } from '../types.ts';

export const LOGGING_TAG = '[LOGGING-MIDDLEWARE]';
const REQUEST_MSG = `${LOGGING_TAG} request`;
const RESPONSE_MSG = `${LOGGING_TAG} response`;

/** A bounded, readable glimpse of a body: raw bodies never go to the log whole. */
export function bodyPreview(body: Buffer, limit: number): string | undefined {
  if (body.length === 0) return undefined;
  if (body.length <= limit) return body.toString('utf8');
  return `${body.toString('utf8', 0, limit)}... (${body.length} bytes)`;
}

/**
 * Logs each request on arrival and its response status, tagged [LOGGING-MIDDLEWARE]. Provider-format
 * requests log what was asked (model, message count, max_tokens, stream); others a truncated body.
 * It only reads, so it is marked read-only and the agent's bytes are forwarded untouched.
 */
export function createLoggingMiddleware(logger: Logger, options: { previewBytes?: number } = {}): Middleware {
  const previewBytes = options.previewBytes ?? 200;
  return {
    name: 'LoggingMiddleware',
    readOnly: true,
    request: async (request, context) => {
      const vendor = request.vendorRequestData;
      if (vendor) {
        logger.info(
          {
            exchange: context.id,
            method: request.method,
            url: request.url,
            model: vendor.model,
            messages: vendor.messages.length,
            max_tokens: vendor.max_tokens,
            stream: vendor.stream ?? false,
          },
          REQUEST_MSG,
        );
      } else {
        logger.info(
          {
            exchange: context.id,
            method: request.method,
            url: request.url,
            body: bodyPreview(context.rawBody, previewBytes),
          },
          REQUEST_MSG,
        );
      }
      return request;
    },
    response: async (response, context) => {
      logger.info(
        {
          exchange: context.id,
          method: context.request.method,
          url: context.request.url,
          status: response.status,
        },
        RESPONSE_MSG,
      );
      return response;
    },
  };
}
