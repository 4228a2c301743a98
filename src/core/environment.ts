/**
 * Every environment variable Ribosome reads (and the few it sets for its own processes), with what
 * it means: the one list docs/reference/environment.md is generated from (`npm run docs`). A test
 * fails when src/ or bin/ names a RIBOSOME_* or SERVICE_RUNTIME_* variable missing here, or when a
 * name here is named nowhere else.
 */
export interface EnvironmentVariable {
  /** Variables that share one meaning (the credentials, say) are one entry. */
  names: readonly [string, ...string[]];
  meaning: string;
}

export const ENVIRONMENT_VARIABLES: readonly EnvironmentVariable[] = [
  {
    names: ['ANTHROPIC_API_KEY', 'ANTHROPIC_AUTH_TOKEN', 'CLAUDE_CODE_OAUTH_TOKEN'],
    meaning:
      'credentials of the agents and sentinels (see [What the agent may do](../agents.md#what-the-agent-may-do)); names only are ever shown',
  },
  { names: ['SERVICE_RUNTIME_PROVIDER_BASE_URL'], meaning: "the server's provider (order below)" },
  {
    names: ['ANTHROPIC_BASE_URL'],
    meaning:
      "the server's provider when neither `--provider-base-url` nor `SERVICE_RUNTIME_PROVIDER_BASE_URL` is given (order below); `ribosome agent`'s provider",
  },
  {
    names: ['SERVICE_RUNTIME_WITHOUT_PROXY'],
    meaning:
      "`false` (or `0`) starts the LLM proxy, `true` (or `1`) keeps it off; over the config file's `withoutProxy` (`--proxy` over it)",
  },
  {
    names: ['RIBOSOME_CLAUDE_BIN'],
    meaning:
      'the Claude Code binary to run (default: the installed `@anthropic-ai/claude-code`, else `claude` on `PATH`)',
  },
  {
    names: ['OPENAI_API_KEY'],
    meaning:
      "the `codex` agent's key (a plan provider's `apiKeyEnv` value takes its place); against a provider on this machine without one, a placeholder",
  },
  {
    names: ['RIBOSOME_CODEX_BIN'],
    meaning: 'the Codex CLI binary to run (default: the installed `@openai/codex`, else `codex` on `PATH`)',
  },
  {
    names: ['RIBOSOME_CODEX_PROVIDER_URL', 'RIBOSOME_GEMINI_PROVIDER_URL'],
    meaning:
      "for tests: what replaces the vendor's API (`https://api.openai.com`, `https://generativelanguage.googleapis.com`) that `codex` and `gemini` codons call in place of the server's default provider (a server on this machine standing for the vendor)",
  },
  {
    names: ['RIBOSOME_KILL_AT'],
    meaning:
      'for tests: `<point>[#<n>]` makes `ribosome run` SIGKILL itself the n-th time it reaches a kill point, between a git or file step and its record (see [Kill points](../operations.md#kill-points-the-steps-with-two-halves)); an unknown point refuses to start',
  },
  {
    names: ['RIBOSOME_CODEX_MAX_RETRIES'],
    meaning:
      "Codex's own retries of a failed request or dropped stream before the codon fails (default 2; the codon's `env` over the server's)",
  },
  {
    names: ['RIBOSOME_OPENCODE_BIN'],
    meaning:
      'the opencode binary to run (default: the installed `opencode-ai`, else `opencode` on `PATH`; see [Agents](../agents.md))',
  },
  {
    names: ['RIBOSOME_GEMINI_BIN'],
    meaning:
      'the Gemini CLI binary to run (default: an installed `@google/gemini-cli`, else `gemini` on `PATH`)',
  },
  {
    names: ['GEMINI_API_KEY'],
    meaning: "the `gemini` agent's key, when its provider names no `apiKeyEnv` (see [Agents](../agents.md))",
  },
  {
    names: ['RIBOSOME_GEMINI_MAX_ATTEMPTS'],
    meaning:
      "attempts of each model request by the `gemini` agent in its own configuration, 1 to 10 (default 3; Gemini CLI's own default of 10 with backoff up to 30 s would hold a rate-limited codon for minutes)",
  },
  {
    names: ['RIBOSOME_SESSION_DIR'],
    meaning:
      'where `ribosome agent` keeps its sessions (`--session-dir` over it; default `<cwd>/../.ribosome/sessions`)',
  },
  {
    names: ['RIBOSOME_TOKEN'],
    meaning:
      'the access token of `ribosome run`, `ribosome web` and `ribosome tui` (`--token` over it; see [Access token](../dashboard.md#access-token)); `ribosome run` removes it from the environment its agents inherit',
  },
  {
    names: ['RIBOSOME_WEB_ROOT'],
    meaning:
      "the folder the dashboard is served from (default the package's `dist-web/`; for development and tests)",
  },
  {
    names: ['RIBOSOME_AGENT_MAX_RETRIES'],
    meaning: 'retries of a failed model call by `ribosome agent` (`--max-retries` over it)',
  },
  { names: ['NO_COLOR'], meaning: 'the terminal UI draws without colour' },
  {
    names: ['RIBOSOME_TUI_TRACE'],
    meaning:
      'a file the terminal UI appends one line to per frame it draws (time, memory, the newest entry shown): for `npm run bench -- attach`',
  },
  {
    names: ['RIBOSOME_AGENT_RUN'],
    meaning:
      "set by Ribosome, not read from you: the mark every process of a codon's agent carries (see [Agent processes](../agents.md#agent-processes-what-is-contained))",
  },
  { names: ['RIBOSOME_RIG_STEP'], meaning: "set by Ribosome: the mark of a rig setup step's processes" },
  { names: ['RIBOSOME_GATE'], meaning: "set by Ribosome: the mark of a verification gate's processes" },
];

/** What holds for every variable above, and the order "order below" refers to. */
export const ENVIRONMENT_NOTES: readonly string[] = [
  'An empty variable counts as unset.',
  "The server's provider, the same for `ribosome run` and `ribosome doctor`: `--provider-base-url` > " +
    "`SERVICE_RUNTIME_PROVIDER_BASE_URL` > `ANTHROPIC_BASE_URL` > the config file's `providerBaseUrl` > " +
    '`https://api.anthropic.com`. Each one given must be an http(s) base URL without user, password, query ' +
    'or fragment, even one a higher one overrides (exit 2 naming it). The agents then get ' +
    '`ANTHROPIC_BASE_URL` set to it (or to the proxy).',
];
