import { DEFAULT_PROVIDER_BASE_URL } from '../../plan/config/proxy-config.ts';
import type { LoadedPlan, Provider } from '../../plan/index.ts';
import type { Agent } from '../../plan/primitives.ts';
import { isLoopbackUrl, presentCredentials, providerAuth } from '../../platform/credentials/credentials.ts';
import { parseTarget } from '../../platform/http/target.ts';
import { type Caller, callerPrefix } from '../cassette/caller.ts';
import { blockedPortMeaning, fetchBlockedPort, isFetchBlockedPort } from './fetch-ports.ts';

/**
 * Providers per plan, codon and sentinel (docs/plans.md, `provider`). Pure: which provider each codon
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
  /** Who calls: a codon's agent, or a sentinel (which calls with fetch, as the built-in agent does). */
  kind: Agent | 'sentinel';
  /** Claude Code (or opencode) with the user's own configuration may be authenticated by their login. */
  userLogin: boolean;
};

/**
 * Claude Code in a configuration of its own does not start without a credential ("Not logged in"),
 * even against a gateway on this machine that would take any.
 */
const needsCredentialEvenLocally = (use: ProviderUse): boolean =>
  use.kind === 'claude-code' && !use.userLogin;

/**
 * The key variable of an agent CLI that does not read Anthropic's (ANTHROPIC_API_KEY and kin) when its
 * provider names none (apiKeyEnv): such uses are checked by `agentKeyProblems`, not with the usual ones.
 */
export const AGENT_KEY_VARS: Partial<Record<ProviderUse['kind'], string>> = {
  codex: 'OPENAI_API_KEY',
  gemini: 'GEMINI_API_KEY',
};

/**
 * Where an agent that speaks another vendor's API goes when the server's provider is the default one
 * (Anthropic's, which it cannot call): its vendor's, or the URL in `envVar` (tests: a server on this
 * machine standing for the vendor). Any other server provider is taken as it is.
 */
export const AGENT_DEFAULT_PROVIDERS: Partial<Record<ProviderUse['kind'], { url: string; envVar: string }>> =
  {
    codex: { url: 'https://api.openai.com', envVar: 'RIBOSOME_CODEX_PROVIDER_URL' },
    gemini: { url: 'https://generativelanguage.googleapis.com', envVar: 'RIBOSOME_GEMINI_PROVIDER_URL' },
  };

/**
 * The vendor's provider `kind` calls in place of the server's `url` when that is the default Anthropic
 * one; undefined when `url` stays (another server provider, or an agent that speaks Anthropic's API).
 */
export function vendorDefault(
  kind: ProviderUse['kind'],
  url: string,
  env: NodeJS.ProcessEnv = process.env,
): string | undefined {
  const own = AGENT_DEFAULT_PROVIDERS[kind];
  if (!own || url.replace(/\/+$/, '') !== DEFAULT_PROVIDER_BASE_URL) return undefined;
  return env[own.envVar]?.trim() || own.url;
}

/** The provider `kind` calls for `url`: its vendor's API in place of the default Anthropic one. */
export function agentProviderUrl(
  kind: ProviderUse['kind'],
  url: string,
  env: NodeJS.ProcessEnv = process.env,
): string {
  return vendorDefault(kind, url, env) ?? url;
}

/** Variables that replace a vendor's default (AGENT_DEFAULT_PROVIDERS) but hold no http(s) base URL. */
export function vendorDefaultProblems(env: NodeJS.ProcessEnv): string[] {
  return Object.values(AGENT_DEFAULT_PROVIDERS).flatMap(({ envVar }) => {
    const value = env[envVar]?.trim();
    const target = value ? parseTarget(value) : undefined;
    return target && !target.ok ? [`${envVar} must be an http(s) base URL: ${target.message}`] : [];
  });
}

/**
 * Every codon and sentinel of the plan with the provider it calls. `agentConfig`: whose
 * configuration the other agent CLIs run with (opencode's user configuration holds its login).
 */
export function providerUses(
  plan: LoadedPlan,
  claudeConfig: 'isolated' | 'user',
  agentConfig: 'isolated' | 'user' = 'isolated',
): ProviderUse[] {
  const userLogin = (agent: string) =>
    agent === 'claude-code' ? claudeConfig === 'user' : agent === 'opencode' && agentConfig === 'user';
  const fallback = (codon: LoadedPlan['codons'][number]) => {
    const agent = codon.onUsageLimit.fallbackAgent?.agent;
    return agent === undefined || agent === codon.agent
      ? []
      : [
          {
            who: `codon ${codon.id}'s fallbackAgent`,
            ...(codon.provider ? { provider: codon.provider } : {}),
            kind: agent,
            userLogin: userLogin(agent),
          },
        ];
  };
  return plan.codons.flatMap((codon) => [
    {
      who: `codon ${codon.id}`,
      ...(codon.provider ? { provider: codon.provider } : {}),
      kind: codon.agent,
      userLogin: userLogin(codon.agent),
    },
    // The agent that takes the codon over at a usage limit needs its credential as much.
    ...fallback(codon),
    ...codon.sentinels.map((entry) => ({
      who: `sentinel ${entry.sentinel.id} (codon ${codon.id})`,
      ...(entry.sentinel.provider ? { provider: entry.sentinel.provider } : {}),
      kind: 'sentinel' as const,
      userLogin: false,
    })),
  ]);
}

/**
 * The proxy's routes: each distinct base URL of the plan's own providers, and the vendor's default of
 * an agent that cannot call the server's default provider (`vendorDefault`: Codex and Gemini CLI with
 * no --provider-base-url), in first-use order. The agent of route n calls `<proxy>/p/<n>`; the plain
 * proxy URL is the server's provider, so no agent sends its key to another vendor.
 */
export function providerRoutes(
  uses: readonly ProviderUse[],
  serverUrl: string,
  env: NodeJS.ProcessEnv = process.env,
): string[] {
  return [
    ...new Set(
      uses.flatMap((use) => {
        const url = use.provider?.baseUrl ?? vendorDefault(use.kind, serverUrl, env);
        return url === undefined ? [] : [url];
      }),
    ),
  ];
}

/** Every provider key variable (apiKeyEnv) of the plan's codons and sentinels, each once. */
export function keyVariables(uses: readonly ProviderUse[]): string[] {
  return [...new Set(uses.flatMap((use) => (use.provider?.apiKeyEnv ? [use.provider.apiKeyEnv] : [])))];
}

/** The path prefix of route `n` on the proxy. */
export const routePrefix = (n: number): string => `/p/${n}`;

/**
 * Where a codon or sentinel sends its calls: its own provider, or its vendor's default
 * (`vendorDefault`), through the proxy's route when the proxy is on; else the server's provider (the
 * plain proxy URL when on).
 */
export function targetOf(
  use: { provider?: Provider | undefined; kind: ProviderUse['kind'] },
  at: {
    serverUrl: string;
    proxyUrl?: string | undefined;
    routes: readonly string[];
    /** The plan's key variables (`keyVariables`), for every target. */
    keyVars?: readonly string[];
    env?: NodeJS.ProcessEnv;
    /** Who calls, named to the proxy in the path (recording and replay: src/llm/cassette/caller.ts). */
    caller?: Caller | undefined;
  },
): ProviderTarget {
  const { provider } = use;
  const keyVars = at.keyVars?.length ? { keyVars: at.keyVars } : {};
  const proxy = at.proxyUrl && at.caller ? `${at.proxyUrl}${callerPrefix(at.caller)}` : at.proxyUrl;
  const url = provider?.baseUrl ?? vendorDefault(use.kind, at.serverUrl, at.env);
  if (url === undefined) return { baseUrl: proxy ?? at.serverUrl, ...keyVars };
  const route = at.routes.indexOf(url);
  const baseUrl = proxy && route >= 0 ? `${proxy}${routePrefix(route)}` : url;
  return { baseUrl, ...(provider?.apiKeyEnv ? { apiKeyEnv: provider.apiKeyEnv } : {}), ...keyVars };
}

/**
 * Why the run cannot start: providers off this machine whose key variable (apiKeyEnv) is not set,
 * and those on it too for Claude Code in its own configuration. Uses of the server's provider, or of
 * a plan provider without apiKeyEnv, are checked together by `usualCredentialUsers`, which names the
 * usual variables once. Names only, never values.
 */
export function missingProviderKeys(uses: readonly ProviderUse[], env: NodeJS.ProcessEnv): string[] {
  return uses.flatMap((use) => {
    const { who, provider } = use;
    if (!provider?.apiKeyEnv) return [];
    const local = isLoopbackUrl(provider.baseUrl);
    if (local && !needsCredentialEvenLocally(use)) return [];
    if (providerAuth(env, provider.apiKeyEnv).source !== 'none') return [];
    const calls = `${who} calls ${new URL(provider.baseUrl).origin} with the key in ${provider.apiKeyEnv}, which is not set`;
    return [
      local
        ? `${calls}: Claude Code does not start without a credential, even against a gateway on this machine: set ${provider.apiKeyEnv} to any value the gateway accepts`
        : `${calls}: set ${provider.apiKeyEnv}, or run offline with --scripted-provider`,
    ];
  });
}

/**
 * The uses that need one of the usual credential variables: a remote provider without apiKeyEnv, or
 * one on this machine called by Claude Code in its own configuration (`local`). An agent with a key
 * variable of its own (AGENT_KEY_VARS) is `agentKeyProblems`' to check.
 */
export function usualCredentialUsers(
  uses: readonly ProviderUse[],
  serverUrl: string,
): Array<ProviderUse & { url: string; local: boolean }> {
  return uses.flatMap((use) => {
    if (use.provider?.apiKeyEnv || use.userLogin || AGENT_KEY_VARS[use.kind]) return [];
    const url = use.provider?.baseUrl ?? serverUrl;
    const local = isLoopbackUrl(url);
    return local && !needsCredentialEvenLocally(use) ? [] : [{ ...use, url, local }];
  });
}

/** Agents that send ANTHROPIC_API_KEY only (as `x-api-key`), never the other usual variables. */
export const API_KEY_ONLY: ReadonlySet<ProviderUse['kind']> = new Set(['opencode']);

/**
 * Uses whose agent cannot send the usual credential that is set: opencode sends ANTHROPIC_API_KEY
 * only (as `x-api-key`), never ANTHROPIC_AUTH_TOKEN or CLAUDE_CODE_OAUTH_TOKEN. Among the uses that
 * need a usual variable (`usualCredentialUsers`), when one of the others is set but not that one (with
 * none set, the usual message names them all). Sentences, names only.
 */
export function unusableCredentialProblems(
  uses: readonly ProviderUse[],
  serverUrl: string,
  env: NodeJS.ProcessEnv,
): string[] {
  const present = presentCredentials(env);
  if (present.length === 0 || present.includes('ANTHROPIC_API_KEY')) return [];
  return usualCredentialUsers(uses, serverUrl).flatMap((use) =>
    API_KEY_ONLY.has(use.kind)
      ? [
          `${use.who} runs opencode, which authenticates with ANTHROPIC_API_KEY only: ${present.join(' and ')} ${present.length > 1 ? 'are' : 'is'} set, which it does not send; set ANTHROPIC_API_KEY (or the provider's apiKeyEnv)`,
        ]
      : [],
  );
}

/**
 * Uses by an agent with a key variable of its own (AGENT_KEY_VARS: Codex's OPENAI_API_KEY) of a provider
 * off this machine, without apiKeyEnv, when that variable is not set: a sentence for each. On this
 * machine (the scripted provider, a local gateway) the agent gets a placeholder instead.
 */
export function agentKeyProblems(
  uses: readonly ProviderUse[],
  serverUrl: string,
  env: NodeJS.ProcessEnv,
): string[] {
  return uses.flatMap((use) => {
    const keyVar = AGENT_KEY_VARS[use.kind];
    if (!keyVar || use.provider?.apiKeyEnv) return [];
    const url = use.provider?.baseUrl ?? agentProviderUrl(use.kind, serverUrl, env);
    if (isLoopbackUrl(url) || env[keyVar]?.trim()) return [];
    return [
      `${use.who} (${use.kind}) calls ${new URL(url).origin} with the key in ${keyVar}, which is not set: set ${keyVar}, give the codon a provider with its apiKeyEnv, or run offline with --scripted-provider`,
    ];
  });
}

/** Agents whose HTTP client refuses no port: Claude Code, Codex (not Node) and opencode (Bun's fetch). */
const ANY_PORT = new Set<ProviderUse['kind']>(['claude-code', 'codex', 'opencode']);

/**
 * Uses that call their provider with Node's fetch (the built-in agent, sentinels) on a port fetch refuses:
 * directly, or with the proxy on, the proxy's own port (`proxyPort`: the main port + 1, when the main
 * port is given); the proxy itself reaches any port. Sentences naming each.
 */
export function blockedPortProblems(
  uses: readonly ProviderUse[],
  serverUrl: string,
  proxy: { enabled: boolean; port?: number | undefined },
): string[] {
  const fetching = uses.filter((use) => !ANY_PORT.has(use.kind));
  if (proxy.enabled) {
    const port = proxy.port;
    if (port === undefined || !isFetchBlockedPort(port) || fetching.length === 0) return [];
    return [
      `the proxy would listen on port ${port} (the main port + 1), but ${blockedPortMeaning(port)}; choose another --port`,
    ];
  }
  return fetching.flatMap(({ who, provider }) => {
    const url = provider?.baseUrl ?? serverUrl;
    const port = fetchBlockedPort(url);
    if (port === undefined) return [];
    return [
      `${who} calls ${new URL(url).origin}, but ${blockedPortMeaning(port)}; run the provider on another port (or start the proxy with --proxy, which reaches it)`,
    ];
  });
}
