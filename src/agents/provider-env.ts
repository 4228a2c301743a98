import { isLoopbackUrl, OFFLINE_KEY, withProviderKey } from '../platform/credentials/credentials.ts';
import type { AgentStart } from './agent-adapter.ts';

/** Variables a parent coding session may set that would confuse an agent we start. */
const NESTING = new Set(['CLAUDECODE', 'CLAUDE_CODE_ENTRYPOINT', 'CLAUDE_CODE_SSE_PORT']);

/**
 * The agent's environment: the server's (so knobs like CLAUDE_CODE_MAX_RETRIES reach it), with the
 * provider set to the codon's (the proxy when it is on), when that provider names its key variable
 * (apiKeyEnv) that key alone as ANTHROPIC_API_KEY, and none of the plan's key variables (keyVars).
 */
export function providerEnv(
  options: Pick<AgentStart, 'providerBaseUrl' | 'apiKeyEnv' | 'keyVars'>,
): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) if (!NESTING.has(key)) env[key] = value;
  env.ANTHROPIC_BASE_URL = options.providerBaseUrl;
  // The credentials (ANTHROPIC_API_KEY, ANTHROPIC_AUTH_TOKEN, CLAUDE_CODE_OAUTH_TOKEN) come from the
  // server's environment as they are; `ribosome run` sets a placeholder only for its scripted provider.
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
