/**
 * Why an exchange failed, as a value: the code a log or test can switch on, the HTTP status the agent
 * gets while headers are still unsent, and a message a person can act on.
 */
export type ExchangeFailureCode =
  | 'UPSTREAM_UNREACHABLE'
  | 'UPSTREAM_DNS_FAILURE'
  | 'UPSTREAM_TIMEOUT'
  | 'UPSTREAM_RESET'
  | 'UPSTREAM_FAILED'
  | 'MIDDLEWARE_FAILED'
  | 'BODY_TOO_LARGE'
  | 'PROXY_BUSY'
  | 'PROXY_STOPPING'
  | 'PROXY_INTERNAL'
  | 'PROXY_CREDENTIAL_MISSING'
  | 'PROXY_CREDENTIAL_WRONG'
  | 'PATH_OUTSIDE_PREFIX'
  | 'BUDGET_EXHAUSTED'
  | 'REPLAY_MISS';

export type ExchangeFailure = {
  code: ExchangeFailureCode;
  status: number;
  message: string;
  /** Sent as `retry-after` when the agent should come back (a full in-flight budget). */
  retryAfterSeconds?: number;
  /** Sent with `x-should-retry: false`: the agent's SDK must not try again (a budget refusal). */
  final?: boolean;
};

/** Codes of errors thrown while setting the proxy up (never during an exchange). */
export type ProxyErrorCode =
  | 'PROXY_INVALID_OPTIONS'
  | 'PROXY_MODE_UNSUPPORTED'
  | 'PROXY_PORT_IN_USE'
  | 'PROXY_LISTEN_FAILED'
  | 'PROXY_MIDDLEWARE_LOAD_FAILED';

export class ProxyError extends Error {
  readonly code: ProxyErrorCode;

  constructor(code: ProxyErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ProxyError';
    this.code = code;
  }
}

/** Anthropic's error types; the agent's SDK maps them to its own exceptions and retry rules. */
function anthropicErrorType(status: number): string {
  if (status === 400) return 'invalid_request_error';
  if (status === 401) return 'authentication_error';
  if (status === 403) return 'permission_error';
  if (status === 413) return 'request_too_large';
  if (status === 529) return 'overloaded_error';
  return 'api_error';
}

/** The body of an error answer, shaped like the provider's own so agents parse it as an API error. */
export function anthropicErrorBody(failure: ExchangeFailure): string {
  return JSON.stringify({
    type: 'error',
    error: { type: anthropicErrorType(failure.status), message: failure.message },
  });
}
