import { readFile } from 'node:fs/promises';
import { notifierCompanion } from '../../../host/notify/companion.ts';
import type { Companion, CompanionDeps, StartCompanions } from '../../../host/server/runtime.ts';
import { dashboardCompanion, type WebServer } from '../../../host/web-server/index.ts';
import type { CassetteHooks } from '../../../llm/cassette/hooks.ts';
import type { MockProvider } from '../../../llm/mock-provider/server.ts';
import type { ProxyHandle } from '../../../llm/proxy/start-for-server.ts';
import type { SpendGate } from '../../../llm/spend/spend-gate.ts';
import type { ProxyConfig } from '../../../plan/config/proxy-config.ts';
import type { SecretRedactor } from '../../../platform/credentials/secret-redactor.ts';
import { cassetteHooks, REPLAY_NO_PROVIDER } from './cassette.ts';
import type { RunRequest } from './parse-flags.ts';
import { type ProviderUrls, replayOffline } from './providers.ts';

/** What runs beside the server of `ribosome run`, as started. */
export type RunCompanions = ProviderUrls & {
  proxy: ProxyHandle | undefined;
  dashboard: WebServer | undefined;
};

/**
 * The run's companions, each given what those before it returned: the notifier, the scripted
 * provider (--scripted-provider), the proxy in front of the provider, the dashboard (--web).
 */
export function runCompanions(
  request: RunRequest,
  routes: string[],
  secrets?: SecretRedactor,
  spendGate?: () => SpendGate | undefined,
): StartCompanions<RunCompanions> {
  return async (start) => {
    // First in, last out: the notifier outlives the other companions, so the run's last notices go out.
    await start(
      notifierCompanion({
        plan: request.plan,
        configTargets: request.settings.notify,
        approveAll: request.approveAll,
      }),
    );
    const scripted = request.scriptedProvider
      ? await start(scriptedProvider(request.scriptedProvider))
      : undefined;
    const providerUrl =
      scripted?.url ?? (replayOffline(request) ? REPLAY_NO_PROVIDER : request.proxy.providerBaseUrl);
    const proxy = await start(
      proxyCompanion({
        config: { ...request.proxy, providerBaseUrl: providerUrl },
        configDir: request.configDir,
        routes,
        accessToken: request.access.token,
        spendGate,
        cassette: (deps) => cassetteHooks(request, deps, secrets),
      }),
    );
    // The agents' credential for the proxy is in their base URL: an agent could print it.
    secrets?.add('proxy-agent-credential', proxy?.agentCredential);
    const { web } = request;
    const dashboard = web
      ? await start(
          dashboardCompanion({
            host: request.settings.host,
            webPort: web.port,
            token: request.access.token,
            root: process.env.RIBOSOME_WEB_ROOT || undefined,
            print: (line) => process.stderr.write(`${line}\n`),
          }),
        )
      : undefined;
    // Agents reach the provider through the proxy: with the run's agent credential beyond loopback.
    return { providerUrl, agentUrl: proxy?.agentUrl, proxy, dashboard };
  };
}

/**
 * The built-in scripted provider serving `scriptPath`, on a dynamic loopback port. Its tracks go on
 * where they were in this execution (kept in .ribosome as each turn is handed out).
 */
function scriptedProvider(scriptPath: string): Companion<MockProvider> {
  return async ({ logger, layout }) => {
    const { parseScriptText } = await import('../../../llm/mock-provider/script-loader.ts');
    const { startMockProvider } = await import('../../../llm/mock-provider/server.ts');
    const { positionsFile } = await import('../../../llm/mock-provider/positions-file.ts');
    let text: string;
    try {
      text = await readFile(scriptPath, 'utf8');
    } catch (error) {
      throw new Error(`scripted provider: cannot read script ${scriptPath}: ${(error as Error).message}`);
    }
    const script = parseScriptText(text, scriptPath);
    if (!script.ok) throw new Error(`scripted provider: ${script.error.message}`);
    const saved = positionsFile(layout.scriptedProvider, text);
    const provider = await startMockProvider({
      script: script.script,
      host: '127.0.0.1',
      port: 0,
      positions: saved.load(),
      limits: saved.loadLimits(),
      onPositions: (positions, limits) => {
        try {
          saved.save(positions, limits);
        } catch (error) {
          logger.warn({ err: error }, 'the scripted provider could not save where its tracks are');
        }
      },
    });
    logger.info({ url: provider.url, script: scriptPath }, 'scripted provider listening');
    return provider;
  };
}

/** The LLM proxy on the server's port + 1 (undefined when it is disabled). */
function proxyCompanion(options: {
  config: ProxyConfig;
  configDir: string;
  routes: string[];
  accessToken: string | undefined;
  spendGate: (() => SpendGate | undefined) | undefined;
  cassette: (deps: CompanionDeps) => CassetteHooks | undefined;
}): Companion<ProxyHandle | undefined> {
  return async (deps) => {
    const { startProxyForServer } = await import('../../../llm/proxy/start-for-server.ts');
    const { cassette, ...rest } = options;
    return startProxyForServer({
      ...rest,
      mainPort: deps.port,
      logger: deps.logger,
      cassette: cassette(deps),
    });
  };
}
