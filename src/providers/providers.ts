import { isLoopbackUrl, providerAuth } from '../credentials/credentials.ts';
import type { LoadedPlan, Provider } from '../plan/index.ts';

/**
 * Providers per plan, codon and sentinel (README "Plans", `provider`). Pure: which provider each codon
 * and sentinel calls, the proxy route of each, and which of them lack a credential. The plan's
 * provider is already in each codon and sentinel that has none of its own (src/plan/build-plan.ts);
 * absent, the server's provider (`--provider-base-url`, env, config, default) is meant.
 */

/**
 * Where a call goes and which variable holds its key (absent: the usual credential variables);
 * `keyVars`: every key variable of the plan's providers, kept out of an agent's environment.
 */
export type ProviderTarget = { baseUrl: string; apiKeyEnv?: string; keyVars?: readonly string[] };

/** The AgentStart fields of a target. */
export function agentProvider(target: ProviderTarget): {
  providerBaseUrl: string;
  apiKeyEnv?: string;
  keyVars?: readonly string[];
} {
  return {
    providerBaseUrl: target.baseUrl,
    ...(target.apiKeyEnv ? { apiKeyEnv: target.apiKeyEnv } : {}),
    ...(target.keyVars?.length ? { keyVars: target.keyVars } : {}),
  };
}

/** A codon's or sentinel's use of a provider; `provider` absent: the server's. */
export type ProviderUse = {
  /** How an error message names it: `codon build`, `sentinel watcher (codon build)`. */
  who: string;
  provider?: Provider;
  /** Claude Code with the user's own configuration may be authenticated by their login. */
  userLogin: boolean;
};

/** Every codon and loaded sentinel of the plan with the provider it calls. */
export function providerUses(plan: LoadedPlan, claudeConfig: 'isolated' | 'user'): ProviderUse[] {
  return plan.codons.flatMap((codon) => [
    {
      who: `codon ${codon.id}`,
      ...(codon.provider ? { provider: codon.provider } : {}),
      userLogin: codon.agent === 'claude-code' && claudeConfig === 'user',
    },
    ...codon.sentinels.flatMap((entry) =>
      entry.status === 'loaded'
        ? [
            {
              who: `sentinel ${entry.sentinel.id} (codon ${codon.id})`,
              ...(entry.sentinel.provider ? { provider: entry.sentinel.provider } : {}),
              userLogin: false,
            },
          ]
        : [],
    ),
  ]);
}

/**
 * The proxy's routes: each distinct base URL of the plan's own providers, in first-use order. The
 * agent of route n calls `<proxy>/p/<n>`; the plain proxy URL is the server's provider.
 */
export function providerRoutes(uses: readonly ProviderUse[]): string[] {
  return [...new Set(uses.flatMap((use) => (use.provider ? [use.provider.baseUrl] : [])))];
}

/** Every provider key variable (apiKeyEnv) of the plan's codons and sentinels, each once. */
export function keyVariables(uses: readonly ProviderUse[]): string[] {
  return [...new Set(uses.flatMap((use) => (use.provider?.apiKeyEnv ? [use.provider.apiKeyEnv] : [])))];
}

/** The path prefix of route `n` on the proxy. */
export const routePrefix = (n: number): string => `/p/${n}`;

/**
 * Where a codon or sentinel sends its calls: its own provider (through the proxy's route when the
 * proxy is on), else the server's provider (the plain proxy URL when on).
 */
export function targetOf(
  provider: Provider | undefined,
  at: {
    serverUrl: string;
    proxyUrl?: string | undefined;
    routes: readonly string[];
    /** The plan's key variables (`keyVariables`), for every target. */
    keyVars?: readonly string[];
  },
): ProviderTarget {
  const keyVars = at.keyVars?.length ? { keyVars: at.keyVars } : {};
  if (!provider) return { baseUrl: at.proxyUrl ?? at.serverUrl, ...keyVars };
  const route = at.routes.indexOf(provider.baseUrl);
  const baseUrl = at.proxyUrl && route >= 0 ? `${at.proxyUrl}${routePrefix(route)}` : provider.baseUrl;
  return { baseUrl, ...(provider.apiKeyEnv ? { apiKeyEnv: provider.apiKeyEnv } : {}), ...keyVars };
}

/**
 * Why the run cannot start: providers off this machine whose key variable (apiKeyEnv) is not set.
 * Uses of the server's provider, or of a plan provider without apiKeyEnv, are checked together by
 * `usualCredentialUsers`, which names the usual variables once. Names only, never values.
 */
export function missingProviderKeys(uses: readonly ProviderUse[], env: NodeJS.ProcessEnv): string[] {
  return uses.flatMap(({ who, provider }) => {
    if (!provider?.apiKeyEnv || isLoopbackUrl(provider.baseUrl)) return [];
    if (providerAuth(env, provider.apiKeyEnv).source !== 'none') return [];
    return [
      `${who} calls ${new URL(provider.baseUrl).origin} with the key in ${provider.apiKeyEnv}, which is not set: set ${provider.apiKeyEnv}, or run offline with --scripted-provider`,
    ];
  });
}

/** The uses that need one of the usual credential variables: a remote provider without apiKeyEnv. */
export function usualCredentialUsers(
  uses: readonly ProviderUse[],
  serverUrl: string,
): Array<ProviderUse & { url: string }> {
  return uses.flatMap((use) => {
    if (use.provider?.apiKeyEnv || use.userLogin) return [];
    const url = use.provider?.baseUrl ?? serverUrl;
    return isLoopbackUrl(url) ? [] : [{ ...use, url }];
  });
}
