import type { Middleware } from '../types.ts';

/**
 * Reference example (off by default): doubles `max_tokens` of provider-format requests that set a
 * non-zero value. It edits `vendorRequestData` in place, which the proxy turns into the new body.
 */
export function createDoubleMaxTokensMiddleware(): Middleware {
  return {
    name: 'DoubleMaxTokens',
    request: async (request) => {
      const vendor = request.vendorRequestData;
      if (vendor?.max_tokens) vendor.max_tokens *= 2;
      return request;
    },
  };
}
