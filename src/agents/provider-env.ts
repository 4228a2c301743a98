import type { AgentStart } from './agent-adapter.ts';

/** Variables a parent coding session may set that would confuse an agent we start. */
const NESTING = new Set(['CLAUDECODE', 'CLAUDE_CODE_ENTRYPOINT', 'CLAUDE_CODE_SSE_PORT']);

/**
 * The agent's environment: the server's (so knobs like CLAUDE_CODE_MAX_RETRIES reach it), with the
 * provider set to the codon's (the proxy when it is on).
 */
export function providerEnv(options: Pick<AgentStart, 'providerBaseUrl'>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) if (!NESTING.has(key)) env[key] = value;
  env.ANTHROPIC_BASE_URL = options.providerBaseUrl;
  // Any value works against a scripted provider; a real one needs the user's key in the environment.
  env.ANTHROPIC_API_KEY ??= 'ribosome-offline';
  return env;
}
