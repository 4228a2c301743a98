/**
 * Whether and when to repeat a failed model call. Pure: the agent loop does the waiting.
 * A provider's retry-after is honoured as given; one asking for more than MAX_RETRY_DELAY_MS ends the
 * retries instead (waiting less would only be refused again), as Claude Code does.
 */
import type { LlmError } from '../../llm/errors.ts';

export const MAX_RETRY_DELAY_MS = 60_000;
const BASE_DELAY_MS = 500;
const MAX_BACKOFF_MS = 8_000;

export type RetryDecision = { retry: true; delayMs: number } | { retry: false };

/** `attempt` is the 1-based number of the retry being considered. */
export function decideRetry(error: LlmError, attempt: number, maxRetries: number): RetryDecision {
  if (!error.retryable || attempt > maxRetries) return { retry: false };
  if (error.retryAfterMs !== null) {
    return error.retryAfterMs > MAX_RETRY_DELAY_MS
      ? { retry: false }
      : { retry: true, delayMs: error.retryAfterMs };
  }
  return { retry: true, delayMs: Math.min(BASE_DELAY_MS * 2 ** (attempt - 1), MAX_BACKOFF_MS) };
}

/** The category Claude Code names in `api_retry.error`. */
export function retryCategory(error: LlmError): string {
  if (error.status === 429) return 'rate_limit';
  if (error.status === 529 || error.errorType === 'overloaded_error') return 'overloaded';
  if (error.status !== null && error.status >= 500) return 'server_error';
  if (error.code === 'LLM_TIMEOUT') return 'timeout';
  if (error.code === 'LLM_NETWORK_ERROR' || error.code === 'LLM_STREAM_ERROR') return 'connection_error';
  return 'unknown';
}
