import type { Logger } from 'pino';
import type { ProxyConfig } from '../../plan/config/proxy-config.ts';
import { isLoopbackHost } from '../../platform/http/loopback.ts';
import { generateToken } from '../../platform/http/token.ts';
import type { CassetteHooks } from '../cassette/hooks.ts';
import type { SpendGate } from '../spend/spend-gate.ts';
import { credentialPrefix } from './access.ts';
import { ProxyError } from './errors.ts';
import { createDoubleMaxTokensMiddleware } from './middleware/double-max-tokens.ts';
import { loadUserMiddleware } from './middleware/load-user-middleware.ts';
import { createLoggingMiddleware } from './middleware/logging.ts';
import { ProxyRunner } from './runner.ts';
import { createSpendCheck } from './spend-check.ts';
import type { Middleware } from './types.ts';

export type ProxyHandle = {
  /** Where the proxy listens (server.ready's `proxy.url`): no credential in it. */
  url: string;
  /**
   * The base URL the server's own agents get: on this machine, with the run's agent credential as its
   * path prefix when the proxy listens beyond loopback (the plain `url` on loopback). A secret then.
   */
  agentUrl: string;
  /** The run's agent credential in `agentUrl`, when there is one: a secret kept out of the journal. */
  agentCredential?: string;
  stop(): Promise<void>;
};

export type StartProxyArgs = {
  /** Its `host` is where the proxy listens: loopback unless the user chose otherwise (not --host). */
  config: ProxyConfig;
  /** The port the main server actually listens on (after binding, when it asked for port 0). */
  mainPort: number;
  logger: Logger;
  /** The config file's folder: user middleware paths are relative to it. */
  configDir: string;
  /** [routes=[]] The plan's own providers: `<proxy>/p/<n>` reaches routes[n] (ProxyRunner). */
  routes?: string[];
  /** The server's access token: beyond loopback, other clients of the proxy need it. */
  accessToken?: string | undefined;
  /** The run's budgets, checked before each model request (docs/unattended.md#budgets). */
  spendGate?: (() => SpendGate | undefined) | undefined;
  /** Recording or replay of the run's exchanges (docs/testing-plans.md). */
  cassette?: CassetteHooks | undefined;
};

/** The address a client on this machine connects to for a proxy bound to `host` (a wildcard: loopback). */
export function localAddress(host: string): string {
  const bare = host.replace(/^\[|\]$/g, '');
  if (bare === '0.0.0.0' || bare === '') return '127.0.0.1';
  if (bare === '::' || bare === '::0') return '[::1]';
  return bare.includes(':') ? `[${bare}]` : bare;
}

/**
 * Starts the proxy beside a listening main server, on its port + 1, with LoggingMiddleware first,
 * then DoubleMaxTokens when configured, then the user's middleware in config order. Beyond loopback
 * every request needs the access token or the run's agent credential (generated here, for this start
 * only), which the server's agents carry in their base URL (`agentUrl`).
 * Resolves to `undefined` when the proxy is disabled. Throws a ProxyError: PROXY_PORT_IN_USE,
 * PROXY_MIDDLEWARE_LOAD_FAILED, PROXY_INVALID_OPTIONS or PROXY_LISTEN_FAILED.
 */
export async function startProxyForServer(args: StartProxyArgs): Promise<ProxyHandle | undefined> {
  const { config, mainPort, logger, configDir, routes = [] } = args;
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
  const guarded = !isLoopbackHost(config.host);
  const agentCredential = guarded ? generateToken() : undefined;
  const runner = new ProxyRunner({
    mode: 'passthrough',
    port,
    host: config.host,
    targetUrl: config.providerBaseUrl,
    routes,
    logger,
    idleTimeoutMs: config.idleTimeoutMs,
    maxBodyBytes: config.maxBodyBytes,
    maxInFlightBytes: config.maxInFlightBytes,
    middleware,
    credentials: agentCredential ? [agentCredential, ...(args.accessToken ? [args.accessToken] : [])] : [],
    ...(args.spendGate ? { spend: createSpendCheck(args.spendGate) } : {}),
    ...(args.cassette ? { cassette: args.cassette } : {}),
  });
  const url = await runner.start();
  const local = `http://${localAddress(config.host)}:${new URL(url).port}`;
  return {
    url,
    agentUrl: agentCredential ? `${local}${credentialPrefix(agentCredential)}` : url,
    ...(agentCredential ? { agentCredential } : {}),
    stop: () => runner.stop(),
  };
}
