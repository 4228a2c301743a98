import { AGENT_DEFAULT_PROVIDERS, AGENT_KEY_VARS, API_KEY_ONLY } from '../../llm/providers/providers.ts';
import type { Agent } from '../../plan/primitives.ts';
import { CREDENTIAL_VARS, presentCredentials } from '../../platform/credentials/credentials.ts';
import type { CheckResult } from './check-result.ts';

const SET_ONE =
  'export ANTHROPIC_API_KEY (or ANTHROPIC_AUTH_TOKEN, or CLAUDE_CODE_OAUTH_TOKEN from `claude setup-token`)';

const set = (env: NodeJS.ProcessEnv, name: string): boolean => Boolean(env[name]?.trim());

/** The key variables of the agents that do not read the usual ones (OPENAI_API_KEY for codex, ...) that are set. */
function agentKeysPresent(env: NodeJS.ProcessEnv): string[] {
  return Object.entries(AGENT_KEY_VARS).flatMap(([agent, name]) =>
    name && set(env, name) ? [`${name} (${agent})`] : [],
  );
}

/**
 * The usual credential variables (the built-in and claude-code agents, opencode, sentinels): which are
 * set; reads values only to test them for emptiness. With none set, a Claude Code login of the user
 * (`loginFile`, its path) or another agent's own key (OPENAI_API_KEY, GEMINI_API_KEY: a codex- or
 * gemini-only user) makes it a warning, not a failure.
 */
export function checkCredentials(env: NodeJS.ProcessEnv, loginFile?: string): CheckResult {
  const present = presentCredentials(env);
  if (present.length > 0) {
    const absent = CREDENTIAL_VARS.filter((name) => !present.includes(name));
    const rest = absent.length > 0 ? `; absent: ${absent.join(', ')}` : '';
    return { check: 'credentials', status: 'ok', detail: `present: ${present.join(', ')}${rest}` };
  }
  const none = `none of ${CREDENTIAL_VARS.join(', ')} is set`;
  if (loginFile !== undefined) {
    return {
      check: 'credentials',
      status: 'warn',
      detail: `${none}; a Claude Code login is there (${loginFile})`,
      fix: `the login works only for claude-code codons with \`claudeConfig: user\` (plan or config file); built-in codons, sentinels and claude-code codons with the default claudeConfig isolated need a variable: ${SET_ONE}`,
    };
  }
  const others = agentKeysPresent(env);
  if (others.length > 0) {
    return {
      check: 'credentials',
      status: 'warn',
      detail: `${none}; ${others.join(', ')} ${others.length > 1 ? 'are' : 'is'} set`,
      fix: `enough for those agents; built-in, claude-code and opencode codons and sentinels need one of these: ${SET_ONE}`,
    };
  }
  return {
    check: 'credentials',
    status: 'fail',
    detail: none,
    fix: `${SET_ONE}; --scripted-provider runs need none`,
  };
}

/** What may stand in for an agent's key (docs/agents.md): its user's own login, under agentConfig user. */
const OWN_LOGIN: Partial<Record<Agent, string>> = {
  gemini: 'their `~/.gemini` login',
  opencode: 'their `opencode auth login`',
};

/** The agents whose CLI has a key of its own to check, and that key's variable. */
const AGENT_KEYS: ReadonlyArray<[Agent, string]> = [
  ...Object.entries(AGENT_KEY_VARS).map(([agent, name]) => [agent as Agent, name] as [Agent, string]),
  ...[...API_KEY_ONLY].map((agent) => [agent as Agent, 'ANTHROPIC_API_KEY'] as [Agent, string]),
];

/**
 * For each agent among `agents` (those whose CLI was found) that authenticates with one variable of
 * its own: whether it is set (a warning when not: the agent is optional, and a plan provider's
 * apiKeyEnv, a provider on this machine or the user's own login may do instead). Names only.
 */
export function checkAgentKeys(env: NodeJS.ProcessEnv, agents: readonly Agent[]): CheckResult[] {
  return AGENT_KEYS.filter(([agent]) => agents.includes(agent)).map(([agent, name]) => {
    const check = `${agent} key`;
    if (set(env, name)) return { check, status: 'ok', detail: `${name} present` };
    const vendor = AGENT_DEFAULT_PROVIDERS[agent]?.url;
    const unsent = API_KEY_ONLY.has(agent) ? presentCredentials(env) : [];
    return {
      check,
      status: 'warn',
      detail: `${name} is not set${unsent.length > 0 ? ` (${unsent.join(', ')} is, which ${agent} does not send)` : ''}`,
      fix: `${agent} codons authenticate with ${name}${API_KEY_ONLY.has(agent) ? ' only' : ''}${vendor ? ` (the server's default provider becomes ${vendor} for them)` : ''}: set it, or give their provider an apiKeyEnv${OWN_LOGIN[agent] ? `, or use \`agentConfig: user\` and ${OWN_LOGIN[agent]}` : ''}; a provider on this machine and --scripted-provider runs need none`,
    };
  });
}
