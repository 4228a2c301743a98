import { missingPlanClis } from '../../../agents/registry/agent-clis.ts';
import type { Caller } from '../../../llm/cassette/caller.ts';
import {
  API_KEY_ONLY,
  agentKeyProblems,
  blockedPortProblems,
  keyVariables,
  missingProviderKeys,
  type ProviderTarget,
  type ProviderUse,
  providerRoutes,
  providerUses,
  targetOf,
  unusableCredentialProblems,
  usualCredentialUsers,
} from '../../../llm/providers/providers.ts';
import type { Provider } from '../../../plan/index.ts';
import {
  credentialProblem,
  OFFLINE_KEY,
  presentCredentials,
} from '../../../platform/credentials/credentials.ts';
import { type Refusal, refuse } from './exit.ts';
import type { RunRequest } from './parse-flags.ts';

/** The plan's providers as the run reaches them. */
export type ProviderWiring = {
  /** Offline (--scripted-provider): every provider is the scripted one, nothing leaves the machine. */
  offline: boolean;
  uses: ProviderUse[];
  /** The plan's own providers, each reached through the proxy at `<proxy>/p/<n>`. */
  routes: string[];
  /** The plan's key variables: no agent sees them unless its provider takes one (offline too). */
  keyVars: string[];
  /** Each agent and sentinel names itself to the proxy (recording and replay). */
  callers: boolean;
};

/** Where the agents' requests go, known once the companions have started. */
export type ProviderUrls = {
  /** The server's provider: the scripted one when it runs, else the configured URL. */
  providerUrl: string;
  /** The proxy's URL for the server's own agents (with their credential beyond loopback). */
  agentUrl: string | undefined;
};

/**
 * The plan's providers, checked before anything starts: their credentials (offline, the scripted
 * provider's stand-in key when none is set), the agent CLIs the codons need, and ports a provider
 * would share with the proxy.
 */
export function wireProviders(request: RunRequest): { ok: true; value: ProviderWiring } | Refusal {
  const { plan, proxy, claudeConfig, agentConfig, cassette } = request;
  const offline = request.scriptedProvider !== undefined || replayOffline(request);
  const uses = offline ? [] : providerUses(plan, claudeConfig, agentConfig);
  const wiring: ProviderWiring = {
    offline,
    uses,
    routes: providerRoutes(uses, proxy.providerBaseUrl),
    keyVars: keyVariables(providerUses(plan, claudeConfig, agentConfig)),
    callers: cassette !== undefined,
  };
  if (offline) {
    // The built-in scripted provider takes any key; Claude Code will not start without one.
    if (presentCredentials(process.env).length === 0) process.env.ANTHROPIC_API_KEY = OFFLINE_KEY;
  } else {
    const problem = startCredentialProblem(uses, proxy.providerBaseUrl);
    if (problem) return refuse(problem);
  }
  // Every agent CLI the plan's codons need, before any codon runs and spends (offline too).
  const clis = missingPlanClis(
    plan.codons.flatMap((codon) => {
      const fallback = codon.onUsageLimit.fallbackAgent?.agent;
      return fallback === undefined
        ? [codon]
        : [codon, { codonId: `${codon.codonId} (fallbackAgent)`, agent: fallback }];
    }),
  );
  if (clis) return refuse(clis);
  const mainPort = request.settings.port;
  const blocked = blockedPortProblems(uses, proxy.providerBaseUrl, {
    enabled: proxy.enabled,
    ...(mainPort ? { port: mainPort + 1 } : {}),
  });
  if (blocked.length > 0) return refuse(blocked.join('\n'));
  return { ok: true, value: wiring };
}

/** A replay that asks no live provider: offline, the cassette answers everything (or refuses). */
export function replayOffline(request: Pick<RunRequest, 'cassette' | 'scriptedProvider'>): boolean {
  const { cassette } = request;
  return (
    request.scriptedProvider === undefined &&
    cassette?.mode === 'replay' &&
    cassette.onMiss === 'fail' &&
    cassette.sentinels === 'cassette'
  );
}

/** Where an agent of `kind` with `provider` (a codon's, a sentinel's) sends its requests. */
export function providerTarget(
  wiring: ProviderWiring,
  use: { provider: Provider | undefined; kind: ProviderUse['kind'] },
  urls: ProviderUrls,
  caller?: Caller,
): ProviderTarget {
  return targetOf(
    { provider: wiring.offline ? undefined : use.provider, kind: use.kind },
    {
      serverUrl: urls.providerUrl,
      proxyUrl: urls.agentUrl,
      routes: wiring.routes,
      keyVars: wiring.keyVars,
      ...(wiring.callers ? { caller } : {}),
    },
  );
}

/**
 * Why the run cannot reach its providers, or undefined: a provider off this machine whose key
 * variable (apiKeyEnv) is not set, or one without apiKeyEnv when no usual credential variable is
 * (Claude Code with the user's own configuration may be authenticated by their login; in its own,
 * it needs a credential even for a gateway on this machine). Every problem at once, one a line, so
 * that one start names every variable to set. Names only.
 */
function startCredentialProblem(uses: ProviderUse[], serverUrl: string): string | undefined {
  const problems = [
    ...missingProviderKeys(uses, process.env),
    ...agentKeyProblems(uses, serverUrl, process.env),
    ...unusableCredentialProblems(uses, serverUrl, process.env),
  ];
  const usual = usualCredentialProblem(uses, serverUrl);
  if (usual) problems.push(usual);
  return problems.length > 0 ? problems.join('\n') : undefined;
}

/** The agents that need a usual credential variable when none is set, in one line. */
function usualCredentialProblem(uses: ProviderUse[], serverUrl: string): string | undefined {
  const users = usualCredentialUsers(uses, serverUrl);
  // An agent that sends ANTHROPIC_API_KEY only is named, so the advice is what it accepts.
  const apiKeyOnly = users.find((use) => API_KEY_ONLY.has(use.kind));
  const first = apiKeyOnly ?? users[0];
  if (!first) return undefined;
  const problem = credentialProblem({
    providerUrl: first.url,
    scripted: false,
    env: process.env,
    claudeCode: first.local,
    ...(apiKeyOnly ? { apiKeyOnly: apiKeyOnly.kind } : {}),
  });
  if (!problem) return undefined;
  const more = users.length > 1 ? ` (and ${users.length - 1} more)` : '';
  return `${first.who}${more}: ${problem}`;
}
