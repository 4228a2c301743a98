/** Errors of an LLM call, as values: a stable code to switch on and what a retry policy needs. */
import type { Result } from '../core/result.ts';
import { ERROR_TYPE_BY_STATUS } from './schemas.ts';
import type { UsageLimit } from './usage-limit/usage-limit.ts';

export type LlmErrorCode =
  /** The provider answered with a non-2xx status. */
  | 'LLM_HTTP_ERROR'
  /** The connection failed (refused, reset, DNS, ...). */
  | 'LLM_NETWORK_ERROR'
  /** The call exceeded its timeout, or a stream was silent longer than its idle timeout. */
  | 'LLM_TIMEOUT'
  /** The caller's AbortSignal fired. */
  | 'LLM_ABORTED'
  /** A 2xx answer that is not a valid Messages response. */
  | 'LLM_INVALID_RESPONSE'
  /** A stream carried an `error` event, broke off, or was malformed. */
  | 'LLM_STREAM_ERROR';

export type LlmError = {
  code: LlmErrorCode;
  message: string;
  /**
   * HTTP status. For an `error` event inside a 200 stream, the status that error type has over HTTP
   * (overloaded_error -> 529), so callers can treat both alike. Null when no status applies.
   */
  status: number | null;
  /** Anthropic error type (rate_limit_error, overloaded_error, ...), when known. */
  errorType: string | null;
  /** From `retry-after-ms` / `retry-after` headers, in milliseconds. */
  retryAfterMs: number | null;
  requestId: string | null;
  /**
   * The account's usage limit, reached (a subscription window, a quota), not a short rate limit:
   * retrying before its reset only meets it again (docs/unattended.md#usage-limits).
   */
  usageLimit: UsageLimit | null;
  /** Whether repeating the same call may succeed (429, 408, 409, 5xx, 529, network, timeout). */
  retryable: boolean;
};

export type LlmResult<T> = Result<T, LlmError>;

export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

export function statusForErrorType(errorType: string): number | null {
  for (const [status, type] of Object.entries(ERROR_TYPE_BY_STATUS)) {
    if (type === errorType) return Number(status);
  }
  return null;
}

export function llmError(
  code: LlmErrorCode,
  message: string,
  fields: Partial<Omit<LlmError, 'code' | 'message'>> = {},
): LlmError {
  const status = fields.status ?? null;
  const retryable =
    fields.retryable ??
    (code === 'LLM_NETWORK_ERROR' ||
      code === 'LLM_TIMEOUT' ||
      (status !== null &&
        (code === 'LLM_HTTP_ERROR' || code === 'LLM_STREAM_ERROR') &&
        isRetryableStatus(status)));
  return {
    code,
    message,
    status,
    errorType: fields.errorType ?? null,
    retryAfterMs: fields.retryAfterMs ?? null,
    requestId: fields.requestId ?? null,
    usageLimit: fields.usageLimit ?? null,
    retryable,
  };
}
