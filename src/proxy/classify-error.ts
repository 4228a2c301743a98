import type { ExchangeFailure } from './errors.ts';

const DNS_CODES = new Set(['ENOTFOUND', 'EAI_AGAIN', 'EAI_FAIL', 'EAI_NONAME', 'EAI_NODATA']);
const UNREACHABLE_CODES = new Set([
  'ECONNREFUSED',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EADDRNOTAVAIL',
  'EHOSTDOWN',
]);
const RESET_CODES = new Set(['ECONNRESET', 'EPIPE', 'ECONNABORTED', 'ERR_STREAM_PREMATURE_CLOSE']);

/** Code set on the error the proxy destroys an upstream request with when its idle timeout fires. */
export const IDLE_TIMEOUT_CODE = 'PROXY_IDLE_TIMEOUT';

function errorCode(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null || !('code' in error)) return undefined;
  return typeof error.code === 'string' ? error.code : undefined;
}

/** Maps a transport error of the upstream request to what the agent is told (pure). */
export function classifyUpstreamError(error: unknown, targetHost: string): ExchangeFailure {
  const code = errorCode(error) ?? 'UNKNOWN';
  const detail = error instanceof Error ? error.message : String(error);
  if (code === IDLE_TIMEOUT_CODE || code === 'ETIMEDOUT') {
    return {
      code: 'UPSTREAM_TIMEOUT',
      status: 504,
      message: `Proxy: the provider at ${targetHost} did not answer in time (${detail}).`,
    };
  }
  if (DNS_CODES.has(code)) {
    return {
      code: 'UPSTREAM_DNS_FAILURE',
      status: 502,
      message: `Proxy: could not resolve the provider host ${targetHost} (${code}). Check the provider base URL.`,
    };
  }
  if (UNREACHABLE_CODES.has(code)) {
    return {
      code: 'UPSTREAM_UNREACHABLE',
      status: 502,
      message: `Proxy: the provider at ${targetHost} is unreachable (${code}).`,
    };
  }
  if (RESET_CODES.has(code)) {
    return {
      code: 'UPSTREAM_RESET',
      status: 502,
      message: `Proxy: the provider at ${targetHost} closed the connection (${code}).`,
    };
  }
  return {
    code: 'UPSTREAM_FAILED',
    status: 502,
    message: `Proxy: the request to the provider at ${targetHost} failed (${code}: ${detail}).`,
  };
}
