import { isCredentialName } from '../platform/credentials/log-safe.ts';

/**
 * What an agent takes from the server's environment: an allowlist (docs/operations.md#the-environment-an-agent-gets),
 * never the environment minus a few. The machine's basics (paths, user, locale, terminal, time zone),
 * the proxy and CA settings, and each agent CLI's own knobs by prefix. A knob whose name reads as a
 * credential (ANTHROPIC_API_KEY, CLAUDE_CODE_OAUTH_TOKEN, GEMINI_API_KEY) is not among them: an
 * agent's key is set on purpose, by the adapter, from its provider. RIBOSOME_TOKEN, the other
 * providers' keys and whatever else the server holds (SSH_AUTH_SOCK, AWS_*, NODE_OPTIONS) never reach
 * it; a codon's `env` adds what a plan needs. Pure.
 */

const NAMES = new Set([
  'PATH',
  'HOME',
  'USER',
  'LOGNAME',
  'SHELL',
  'LANG',
  'LANGUAGE',
  'TERM',
  'COLORTERM',
  'TZ',
  'TMPDIR',
  'NO_COLOR',
  'FORCE_COLOR',
  // Where the user's own configuration is (an agent run with agentConfig: user reads it there).
  'XDG_CONFIG_HOME',
  'XDG_DATA_HOME',
  'XDG_CACHE_HOME',
  'XDG_STATE_HOME',
  'CLAUDE_CONFIG_DIR',
  // The network as this machine reaches it.
  'HTTP_PROXY',
  'HTTPS_PROXY',
  'NO_PROXY',
  'ALL_PROXY',
  'http_proxy',
  'https_proxy',
  'no_proxy',
  'all_proxy',
  'NODE_USE_ENV_PROXY',
  'SSL_CERT_FILE',
  'SSL_CERT_DIR',
  'NODE_EXTRA_CA_CERTS',
  // Claude Code's knobs without its prefix.
  'MAX_THINKING_TOKENS',
  'API_TIMEOUT_MS',
  'BASH_DEFAULT_TIMEOUT_MS',
  'BASH_MAX_TIMEOUT_MS',
  'BASH_MAX_OUTPUT_LENGTH',
  'MCP_TIMEOUT',
  'MCP_TOOL_TIMEOUT',
  'MAX_MCP_OUTPUT_TOKENS',
  'USE_BUILTIN_RIPGREP',
]);

/** Each agent CLI's own knobs (and `ribosome agent`'s: RIBOSOME_AGENT_MAX_RETRIES), the locale's LC_*. */
const PREFIXES = [
  'LC_',
  'CLAUDE_CODE_',
  'DISABLE_',
  'ANTHROPIC_',
  'CODEX_',
  'GEMINI_',
  'OPENCODE_',
  'RIBOSOME_AGENT_',
];

/** Variables a parent coding session may set that would confuse an agent we start. */
const NESTING = new Set(['CLAUDECODE', 'CLAUDE_CODE_ENTRYPOINT', 'CLAUDE_CODE_SSE_PORT']);

/** Whether an agent may take `name` from the server's environment. */
export function passedToAgents(name: string): boolean {
  if (NESTING.has(name)) return false;
  if (NAMES.has(name)) return true;
  return PREFIXES.some((prefix) => name.startsWith(prefix)) && !isCredentialName(name);
}

/**
 * The variables of `server` an agent gets before its adapter sets its provider and key: the
 * allowlist above, without `keyVars` (the plan's providers' key variables, whatever their names).
 */
export function agentBaseEnv(server: NodeJS.ProcessEnv, keyVars: readonly string[] = []): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(server)) {
    if (value !== undefined && passedToAgents(name) && !keyVars.includes(name)) env[name] = value;
  }
  return env;
}
