import type { ExchangeFailure } from './errors.ts';

const DNS_CODES = new Set(['ENOTFOUND', 'EAI_AGAIN', 'EAI_FAIL', 'EAI_NONAME', 'EAI_NODATA']);
const UNREACHABLE_CODES = new Set([
  'ECONNREFUSED',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EADDRNOTAVAIL',
  'EHOSTDOWN',
]);
// UND_ERR_SOCKET: undici's "other side closed" (the target closed the connection before the answer ended).
const RESET_CODES = new Set([
  'ECONNRESET',
  'EPIPE',
  'ECONNABORTED',
  'ERR_STREAM_PREMATURE_CLOSE',
  'UND_ERR_SOCKET',
]);
/** Code of an error that says the proxy's idle timeout ended an exchange. */
export const IDLE_TIMEOUT_CODE = 'PROXY_IDLE_TIMEOUT';
// undici's idle timeouts: no head within the idle timeout, or no body bytes for that long.
const TIMEOUT_CODES = new Set([
  IDLE_TIMEOUT_CODE,
  'ETIMEDOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
]);
const RETRIABLE_ON_REUSED = new Set(['ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET']);

/** Marks a transport error that hit a connection which had carried bytes from the target before. */
export const ON_USED_CONNECTION = Symbol('onUsedConnection');

function errorCode(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null || !('code' in error)) return undefined;
  return typeof error.code === 'string' ? error.code : undefined;
}

/** Maps a transport error of the upstream request to what the agent is told (pure). */
export function classifyUpstreamError(error: unknown, targetHost: string): ExchangeFailure {
  // undici's parser errors often lose their llhttp code name; they are HTTP parse errors all the same.
  const parseError = error instanceof Error && error.name === 'HTTPParserError';
  const code = errorCode(error) ?? (parseError ? 'HPE_INVALID_RESPONSE' : 'UNKNOWN');
  const detail = error instanceof Error ? error.message : String(error);
  if (TIMEOUT_CODES.has(code)) {
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

/**
 * Whether a request failed, before any answer, on a kept-alive connection the target had closed while
 * it was idle: a reset (or close) of a connection that had carried bytes from the target before. Such
 * a request never reached the target, so one fresh attempt is safe. undici's "other side closed" says
 * how many bytes the socket read; a raw socket error is marked by the connector (ON_USED_CONNECTION).
 */
export function isRetriableOnReusedConnection(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  if (!RETRIABLE_ON_REUSED.has(errorCode(error) ?? '')) return false;
  if (ON_USED_CONNECTION in error) return true;
  const socket = 'socket' in error ? error.socket : undefined;
  return (
    typeof socket === 'object' &&
    socket !== null &&
    'bytesRead' in socket &&
    typeof socket.bytesRead === 'number' &&
    socket.bytesRead > 0
  );
}

/** A request undici refused to send (a header value with a newline, a bad method): not the target's fault. */
export function isInvalidRequest(error: unknown): boolean {
  const code = errorCode(error);
  return code === 'UND_ERR_INVALID_ARG' || code === 'UND_ERR_NOT_SUPPORTED';
}
