import {
  CREDENTIAL_VARS,
  isLoopbackUrl,
  OFFLINE_KEY,
  withProviderKey,
} from '../platform/credentials/credentials.ts';
import type { AgentStart } from './agent-adapter.ts';
import { agentBaseEnv } from './agent-env.ts';

/**
 * The agent's environment: built for it (agentBaseEnv: an allowlist of the server's, so knobs like
 * CLAUDE_CODE_MAX_RETRIES reach it and RIBOSOME_TOKEN or another provider's key never do), with the
 * provider set to the codon's (the proxy when it is on) and its credential: when that provider names
 * its key variable (apiKeyEnv) that key alone as ANTHROPIC_API_KEY, else the server's credential
 * variables (ANTHROPIC_API_KEY, ANTHROPIC_AUTH_TOKEN, CLAUDE_CODE_OAUTH_TOKEN) as they are; none of
 * the plan's other key variables (keyVars). `server`: process.env but in tests.
 */
export function providerEnv(
  options: Pick<AgentStart, 'providerBaseUrl' | 'apiKeyEnv' | 'keyVars'>,
  server: NodeJS.ProcessEnv = process.env,
): NodeJS.ProcessEnv {
  const env = agentBaseEnv(server, options.keyVars);
  env.ANTHROPIC_BASE_URL = options.providerBaseUrl;
  // The credentials come from the server's environment as they are; `ribosome run` sets a placeholder
  // only for its scripted provider. withProviderKey then keeps the one this provider uses.
  const named = options.apiKeyEnv === undefined ? [] : [options.apiKeyEnv];
  for (const name of [...CREDENTIAL_VARS, ...named]) {
    const value = server[name];
    if (value !== undefined) env[name] = value;
  }
  return withProviderKey(env, options.apiKeyEnv, options.keyVars);
}

/**
 * `env` (an agent's environment) with the agent CLI's own key variable `keyVar` (Codex's OPENAI_API_KEY,
 * Gemini CLI's GEMINI_API_KEY, opencode's ANTHROPIC_API_KEY) set to `key` when that holds a value;
 * else, for a provider on this machine (the scripted one, a local gateway: any key does), to a
 * placeholder, as the CLI does not start without one; else unset (a remote provider without a key is
 * refused before the run: src/llm/providers/providers.ts agentKeyProblems). Pure.
 */
export function withAgentKey(
  env: NodeJS.ProcessEnv,
  keyVar: string,
  key: string | undefined,
  providerBaseUrl: string,
): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = { ...env };
  if (key?.trim()) out[keyVar] = key;
  else if (isLoopbackUrl(providerBaseUrl)) out[keyVar] = OFFLINE_KEY;
  else delete out[keyVar];
  return out;
}
