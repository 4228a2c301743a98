// Interface B, the LLM proxy: what the main server and middleware authors use.

export type { MiddlewareSpec } from '../../plan/config/proxy-config.ts';
export {
  DEFAULT_IDLE_TIMEOUT_MS,
  DEFAULT_MAX_BODY_BYTES,
  DEFAULT_MAX_IN_FLIGHT_BYTES,
} from '../../plan/config/proxy-defaults.ts';
export { isCredentialName, redactUrl } from '../../platform/credentials/log-safe.ts';
export { classifyUpstreamError } from './classify-error.ts';
export { compose, type Pipeline } from './compose.ts';
export { anthropicErrorBody, type ExchangeFailure, ProxyError, type ProxyErrorCode } from './errors.ts';
export { createDoubleMaxTokensMiddleware } from './middleware/double-max-tokens.ts';
export { loadUserMiddleware, type MiddlewareFactoryContext } from './middleware/load-user-middleware.ts';
export { createLoggingMiddleware, LOGGING_TAG, type LoggingOptions } from './middleware/logging.ts';
export { ProxyRunner, type ProxyRunnerOptions } from './runner.ts';
export { createSpendCheck, type SpendCheck } from './spend-check.ts';
export { type ProxyHandle, type StartProxyArgs, startProxyForServer } from './start-for-server.ts';
export { duplicateBody } from './tee.ts';
export type { ExchangeContext, Middleware, ProxyHeaders, ProxyRequest, ProxyResponse } from './types.ts';
export { type VendorApiRequest, VendorApiRequestSchema } from './vendor-request.ts';
