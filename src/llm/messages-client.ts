/**
 * A small client for `POST {baseUrl}/v1/messages`, plain JSON or streamed (SSE). Every failure comes
 * back as an LlmError value (never thrown), carrying what a retry policy needs. No retries here: the
 * caller owns that policy.
 */
import { type LlmError, type LlmResult, llmError, statusForErrorType } from './errors.ts';
import { createMessageAccumulator } from './message-accumulator.ts';
import { parseRetryAfter } from './retry-after.ts';
import {
  ApiErrorBodySchema,
  type ContentBlock,
  errorTypeForStatus,
  KNOWN_STREAM_EVENT_TYPES,
  type Message,
  MessageSchema,
  type MessagesRequest,
  type StreamEvent,
  StreamEventSchema,
} from './schemas.ts';
import { createSseParser } from './sse-parser.ts';
import { usageLimitOfHttp } from './usage-limit/usage-limit.ts';

export const DEFAULT_BASE_URL = 'https://api.anthropic.com';
export const ANTHROPIC_VERSION = '2023-06-01';

export type MessagesClientOptions = {
  /** [baseUrl='https://api.anthropic.com'] Provider root; `/v1/messages` is appended. */
  baseUrl?: string;
  /** Sent as `x-api-key`. */
  apiKey?: string;
  /** Sent as `Authorization: Bearer` (used instead of apiKey by some gateways). */
  authToken?: string;
  /** [anthropicVersion='2023-06-01'] */
  anthropicVersion?: string;
  /** Joined into `anthropic-beta`. */
  betas?: string[];
  /** Extra headers on every call. */
  headers?: Record<string, string>;
  /** [timeoutMs=600000] Whole-call timeout, stream included. 0 disables it. */
  timeoutMs?: number;
  /** [idleTimeoutMs=0] Longest silence allowed inside a stream; 0 disables it. */
  idleTimeoutMs?: number;
  /** [fetch=globalThis.fetch] */
  fetch?: typeof fetch;
};

export type CallOptions = {
  signal?: AbortSignal;
  /** Overrides the client's timeoutMs for this call. */
  timeoutMs?: number;
  /** Every stream event, in order (streaming only). */
  onEvent?: (event: StreamEvent) => void;
  /** Each content block once it is complete (streaming only), with the message so far. */
  onBlock?: (block: ContentBlock, at: { index: number; message: Message; requestId: string | null }) => void;
};

export type MessageResponse = { message: Message; requestId: string | null };

export type MessagesClient = {
  create(request: MessagesRequest, options?: CallOptions): Promise<LlmResult<MessageResponse>>;
  stream(request: MessagesRequest, options?: CallOptions): Promise<LlmResult<MessageResponse>>;
};

export function createMessagesClient(options: MessagesClientOptions = {}): MessagesClient {
  const baseUrl = (options.baseUrl ?? DEFAULT_BASE_URL).replace(/\/+$/, '');
  const doFetch = options.fetch ?? globalThis.fetch;
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'application/json',
    'anthropic-version': options.anthropicVersion ?? ANTHROPIC_VERSION,
    ...(options.apiKey ? { 'x-api-key': options.apiKey } : {}),
    ...(options.authToken ? { authorization: `Bearer ${options.authToken}` } : {}),
    ...(options.betas?.length ? { 'anthropic-beta': options.betas.join(',') } : {}),
    ...options.headers,
  };
  const defaultTimeout = options.timeoutMs ?? 600_000;
  const idleTimeoutMs = options.idleTimeoutMs ?? 0;

  const call = async (
    request: MessagesRequest,
    stream: boolean,
    callOptions: CallOptions,
  ): Promise<LlmResult<MessageResponse>> => {
    const controller = new AbortController();
    let reason: 'timeout' | 'idle' | 'aborted' | null = null;
    const abort = (why: 'timeout' | 'idle' | 'aborted') => {
      reason ??= why;
      controller.abort();
    };
    const onCallerAbort = () => abort('aborted');
    if (callOptions.signal?.aborted) return fail(llmError('LLM_ABORTED', 'the call was aborted'));
    callOptions.signal?.addEventListener('abort', onCallerAbort, { once: true });
    const timeoutMs = callOptions.timeoutMs ?? defaultTimeout;
    const timer = timeoutMs > 0 ? setTimeout(() => abort('timeout'), timeoutMs) : undefined;
    let idleTimer: NodeJS.Timeout | undefined;
    const touch = () => {
      if (idleTimeoutMs <= 0) return;
      clearTimeout(idleTimer);
      idleTimer = setTimeout(() => abort('idle'), idleTimeoutMs);
    };
    const abortedError = (): LlmError =>
      reason === 'aborted'
        ? llmError('LLM_ABORTED', 'the call was aborted')
        : reason === 'idle'
          ? llmError('LLM_TIMEOUT', `the stream was silent for more than ${idleTimeoutMs} ms`)
          : llmError('LLM_TIMEOUT', `the call took longer than ${timeoutMs} ms`);

    try {
      let response: Response;
      try {
        response = await doFetch(`${baseUrl}/v1/messages`, {
          method: 'POST',
          headers: stream ? { ...headers, accept: 'text/event-stream' } : headers,
          body: JSON.stringify({ ...request, stream }),
          signal: controller.signal,
        });
      } catch (err) {
        if (reason) return fail(abortedError());
        return fail(llmError('LLM_NETWORK_ERROR', `cannot reach ${baseUrl}: ${describeFetchError(err)}`));
      }
      const requestId = response.headers.get('request-id');
      if (!response.ok) return fail(await httpError(response, requestId, () => reason !== null));

      try {
        if (!stream) {
          const parsed = MessageSchema.safeParse(await response.json().catch(() => undefined));
          if (!parsed.success) {
            return fail(
              llmError('LLM_INVALID_RESPONSE', 'the response is not a Messages API message', { requestId }),
            );
          }
          return { ok: true, value: { message: parsed.data, requestId } };
        }
        touch();
        return await readStream(response, requestId, callOptions, touch);
      } catch (err) {
        if (reason) return fail({ ...abortedError(), requestId });
        return fail(
          llmError('LLM_NETWORK_ERROR', `the connection broke: ${describeFetchError(err)}`, { requestId }),
        );
      }
    } finally {
      clearTimeout(timer);
      clearTimeout(idleTimer);
      callOptions.signal?.removeEventListener('abort', onCallerAbort);
    }
  };

  return {
    create: (request, callOptions = {}) => call(request, false, callOptions),
    stream: (request, callOptions = {}) => call(request, true, callOptions),
  };
}

const fail = (error: LlmError): { ok: false; error: LlmError } => ({ ok: false, error });

async function readStream(
  response: Response,
  requestId: string | null,
  options: CallOptions,
  touch: () => void,
): Promise<LlmResult<MessageResponse>> {
  if (!response.body) return fail(llmError('LLM_INVALID_RESPONSE', 'the stream has no body', { requestId }));
  const parser = createSseParser();
  const accumulator = createMessageAccumulator();
  const decoder = new TextDecoder();

  for await (const chunk of response.body) {
    touch();
    for (const sse of parser.feed(decoder.decode(chunk, { stream: true }))) {
      let data: unknown;
      try {
        data = JSON.parse(sse.data);
      } catch {
        return fail(llmError('LLM_STREAM_ERROR', `event "${sse.event}" carries invalid JSON`, { requestId }));
      }
      const parsed = StreamEventSchema.safeParse(data);
      if (!parsed.success) {
        const type = typeof data === 'object' && data !== null && 'type' in data ? data.type : undefined;
        if (typeof type === 'string' && !KNOWN_STREAM_EVENT_TYPES.has(type)) continue; // newer event type
        return fail(llmError('LLM_STREAM_ERROR', `malformed "${sse.event}" event`, { requestId }));
      }
      const event = parsed.data;
      options.onEvent?.(event);
      const outcome = accumulator.apply(event);
      if (!outcome.ok) {
        const errorType = outcome.error.errorType ?? null;
        return fail(
          llmError('LLM_STREAM_ERROR', outcome.error.message, {
            requestId,
            errorType,
            status: errorType ? statusForErrorType(errorType) : null,
          }),
        );
      }
      const message = accumulator.snapshot();
      if (outcome.completedBlock && outcome.completedIndex !== undefined && message) {
        options.onBlock?.(outcome.completedBlock, { index: outcome.completedIndex, message, requestId });
      }
      if (accumulator.isComplete() && message) return { ok: true, value: { message, requestId } };
    }
  }
  // Retryable: a stream cut off before message_stop is a transport failure, like a reset connection.
  return fail(
    llmError('LLM_STREAM_ERROR', 'the stream ended before message_stop', { requestId, retryable: true }),
  );
}

async function httpError(
  response: Response,
  requestId: string | null,
  wasAborted: () => boolean,
): Promise<LlmError> {
  const text = await response.text().catch(() => '');
  if (wasAborted()) return llmError('LLM_ABORTED', 'the call was aborted', { requestId });
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  const parsed = ApiErrorBodySchema.safeParse(body);
  const status = response.status;
  const errorType = parsed.success ? parsed.data.error.type : errorTypeForStatus(status);
  const detail = parsed.success ? parsed.data.error.message : text.slice(0, 200) || response.statusText;
  const shouldRetry = response.headers.get('x-should-retry');
  const usageLimit = usageLimitOfHttp(status, response.headers, body ?? text);
  return llmError('LLM_HTTP_ERROR', `${status} ${errorType}: ${detail}`, {
    status,
    errorType,
    requestId,
    retryAfterMs: parseRetryAfter(response.headers),
    usageLimit,
    // A usage limit holds until its reset: repeating the call now only meets it again.
    ...(usageLimit
      ? { retryable: false }
      : shouldRetry === 'true' || shouldRetry === 'false'
        ? { retryable: shouldRetry === 'true' }
        : {}),
  });
}

function describeFetchError(err: unknown): string {
  if (err instanceof Error) {
    const cause: unknown = err.cause;
    if (cause instanceof Error) {
      const code = 'code' in cause && typeof cause.code === 'string' ? `${cause.code} ` : '';
      return `${code}${cause.message}`;
    }
    return err.message;
  }
  return String(err);
}
