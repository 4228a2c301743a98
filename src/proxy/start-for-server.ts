import type { Logger } from 'pino';
import type { ProxyConfig } from '../config/proxy-config.ts';
import { ProxyError } from './errors.ts';
import { createDoubleMaxTokensMiddleware } from './middleware/double-max-tokens.ts';
import { loadUserMiddleware } from './middleware/load-user-middleware.ts';
import { createLoggingMiddleware } from './middleware/logging.ts';
import { ProxyRunner } from './runner.ts';
import type { Middleware } from './types.ts';

export type ProxyHandle = { url: string; stop(): Promise<void> };

export type StartProxyArgs = {
  config: ProxyConfig;
  /** The host the main server listens on; the proxy listens there too. */
  host: string;
  /** The port the main server actually listens on (after binding, when it asked for port 0). */
  mainPort: number;
  logger: Logger;
  /** The config file's folder: user middleware paths are relative to it. */
  configDir: string;
  /** [routes=[]] The plan's own providers: `<proxy>/p/<n>` reaches routes[n] (ProxyRunner). */
  routes?: string[];
};

/**
 * Starts the proxy beside a listening main server, on its port + 1, with LoggingMiddleware first,
 * then DoubleMaxTokens when configured, then the user's middleware in config order.
 * Resolves to `undefined` when the proxy is disabled. Throws a ProxyError: PROXY_PORT_IN_USE,
 * PROXY_MIDDLEWARE_LOAD_FAILED, PROXY_INVALID_OPTIONS or PROXY_LISTEN_FAILED.
 */
export async function startProxyForServer(args: StartProxyArgs): Promise<ProxyHandle | undefined> {
  const { config, host, mainPort, logger, configDir, routes = [] } = args;
  if (!config.enabled) return undefined;
  const port = mainPort + 1;
  if (!Number.isInteger(mainPort) || mainPort < 1 || port > 65535) {
    throw new ProxyError(
      'PROXY_INVALID_OPTIONS',
      `The proxy listens on the main server port + 1, and main port ${mainPort} leaves no such port.`,
    );
  }
  const user = await loadUserMiddleware(config.middleware, configDir, { logger });
  if (!user.ok) throw new ProxyError(user.error.code, user.error.message);
  const middleware: Middleware[] = [
    createLoggingMiddleware(logger, { logBodies: config.logBodies }),
    ...(config.doubleMaxTokens ? [createDoubleMaxTokensMiddleware()] : []),
    ...user.value,
  ];
  const runner = new ProxyRunner({
    mode: 'passthrough',
    port,
    host,
    targetUrl: config.providerBaseUrl,
    routes,
    logger,
    idleTimeoutMs: config.idleTimeoutMs,
    maxBodyBytes: config.maxBodyBytes,
    maxInFlightBytes: config.maxInFlightBytes,
    middleware,
  });
  const url = await runner.start();
  return { url, stop: () => runner.stop() };
}
