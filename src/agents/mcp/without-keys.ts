import { CREDENTIAL_VARS } from '../../platform/credentials/credentials.ts';

/** The LLM keys an agent CLI holds in its environment: Claude's credentials, Codex's and Gemini CLI's keys. */
export const AGENT_KEY_VARS: readonly string[] = [
  ...CREDENTIAL_VARS,
  'OPENAI_API_KEY',
  'GEMINI_API_KEY',
  'GOOGLE_API_KEY',
];

/**
 * A stdio server's command line for a CLI that starts its servers with its own whole environment
 * (Claude Code, opencode): through `env -u`, so the agent's LLM keys never reach a server (a third
 * party's program, often). A key the entry gives the server itself (`env`, `envFrom`) is kept. Pure.
 */
export function withoutAgentKeys(
  line: { command: string; args: readonly string[] },
  given: Readonly<Record<string, string>>,
): { command: string; args: string[] } {
  const unset = AGENT_KEY_VARS.filter((name) => !(name in given)).flatMap((name) => ['-u', name]);
  return { command: '/usr/bin/env', args: [...unset, '--', line.command, ...line.args] };
}
