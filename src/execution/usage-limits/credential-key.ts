import { createHash } from 'node:crypto';
import { CREDENTIAL_VARS, PROVIDER_KEY_VARS } from '../../platform/credentials/credentials.ts';

/**
 * The server's variables each agent takes its credential from (src/agents/*: Claude's for the
 * built-in agent and Claude Code, opencode's ANTHROPIC_API_KEY alone, Codex's and Gemini CLI's own).
 * An agent not listed: every provider key variable, so it never shares a limit by mistake.
 */
const AGENT_CREDENTIAL_VARS: Readonly<Record<string, readonly string[]>> = {
  builtin: CREDENTIAL_VARS,
  'claude-code': CREDENTIAL_VARS,
  opencode: ['ANTHROPIC_API_KEY'],
  codex: ['OPENAI_API_KEY'],
  gemini: ['GEMINI_API_KEY', 'GOOGLE_API_KEY'],
};

/**
 * The name of the record of `agent`'s usage limit on the credential this server gives it:
 * `<agent>-<16 hex>`, the hex from a sha256 of the agent, the provider it reaches, and the values of
 * that agent's credential variables in `env`. Runs on the same credential and provider share a
 * name; another key, or another agent, gets its own. The values never leave the hash. Pure.
 */
export function credentialKey(agent: string, provider: string, env: NodeJS.ProcessEnv): string {
  const vars = AGENT_CREDENTIAL_VARS[agent] ?? PROVIDER_KEY_VARS;
  const values = vars.map((name) => [name, env[name]?.trim() || null]);
  const hex = createHash('sha256')
    .update(JSON.stringify([agent, provider.replace(/\/+$/, ''), values]))
    .digest('hex')
    .slice(0, 16);
  return `${agent.replace(/[^A-Za-z0-9._-]/g, '_')}-${hex}`;
}
