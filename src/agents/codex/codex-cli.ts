import { homedir } from 'node:os';
import { join } from 'node:path';
import { CREDENTIAL_VARS } from '../../platform/credentials/credentials.ts';
import type { AgentStart } from '../agent-adapter.ts';
import type { AgentCli } from '../cli-binary.ts';
import { withAgentKey } from '../provider-env.ts';
import { AGENT_MARK } from '../spawn-agent.ts';

export const CODEX: AgentCli = {
  name: 'Codex CLI',
  envVar: 'RIBOSOME_CODEX_BIN',
  pkg: '@openai/codex',
  bin: 'codex',
};

/** The variable Codex reads its API key from (the provider's `env_key`); a plan's apiKeyEnv value lands here. */
export const CODEX_KEY_VAR = 'OPENAI_API_KEY';

/**
 * Codex's own default (codex-cli 0.171): the model a codex codon runs with when the plan names none.
 * The engine's default model is a Claude one, which an OpenAI provider does not serve.
 */
export const CODEX_DEFAULT_MODEL = 'gpt-6.2-sol';

/** The provider id our settings define in Codex's configuration. */
const PROVIDER = 'ribosome';

/**
 * Codex's own retries of a failed request (429, 5xx) and of a dropped stream, before it gives up and
 * the engine's retry policy decides: RIBOSOME_CODEX_MAX_RETRIES (plan env, else the server's), else 2.
 * A refused connection is retried by Codex without end whatever these say: the translator gives up.
 */
const DEFAULT_MAX_RETRIES = 2;

/**
 * How long Codex waits on a silent stream: longer than any stall limit, so the engine's stall
 * detection (plan stallTimeoutMs) decides, as for the other agents.
 */
const STREAM_IDLE_TIMEOUT_MS = 6 * 60 * 60_000;

/** The model Codex is told to use: the codon's, unless it is the engine's Claude default. */
export function codexModel(model: string): string {
  return model === '' || /^claude-/i.test(model) ? CODEX_DEFAULT_MODEL : model;
}

/** Codex's home: ours inside the execution, or (agentConfig user) the user's CODEX_HOME or ~/.codex. */
export function codexHome(
  stateDir: string,
  config: 'isolated' | 'user',
  env: NodeJS.ProcessEnv = process.env,
): string {
  if (config === 'isolated') return join(stateDir, 'codex-home');
  return env.CODEX_HOME || join(homedir(), '.codex');
}

/** A TOML value: strings in JSON's escapes (TOML basic strings read them alike), numbers as they are. */
const toml = (value: string | number): string =>
  typeof value === 'string' ? JSON.stringify(value) : `${value}`;

/**
 * The settings every codex run gets as `-c` overrides (over its config.toml, ours or the user's): the
 * provider (the codon's, the proxy when on, speaking the Responses API), retries bounded, and the run's
 * mark set in every shell command's environment whatever the user's shell_environment_policy keeps.
 */
export function providerOverrides(options: {
  providerBaseUrl: string;
  mark: string;
  maxRetries: number;
}): string[] {
  const base = `${options.providerBaseUrl.replace(/\/+$/, '')}/v1`;
  const provider: Array<[string, string | number]> = [
    ['name', 'Ribosome'],
    ['base_url', base],
    ['env_key', CODEX_KEY_VAR],
    ['wire_api', 'responses'],
    ['request_max_retries', options.maxRetries],
    ['stream_max_retries', options.maxRetries],
    ['stream_idle_timeout_ms', STREAM_IDLE_TIMEOUT_MS],
  ];
  return [
    `model_provider=${toml(PROVIDER)}`,
    ...provider.map(([key, value]) => `model_providers.${PROVIDER}.${key}=${toml(value)}`),
    `shell_environment_policy.set.${AGENT_MARK}=${toml(options.mark)}`,
  ];
}

/**
 * The config.toml of an isolated home: nothing reaches the network but the provider (no update check,
 * no plugin or app sync, no analytics), and shell commands see the agent's whole environment (the
 * plan's env), as Claude Code's Bash does.
 */
export const ISOLATED_CONFIG = `# Written by Ribosome for one execution (agentConfig: isolated).
check_for_update_on_startup = false

[features]
plugins = false
apps = false
remote_plugin = false

[analytics]
enabled = false

[shell_environment_policy]
inherit = "all"
`;

export type CodexTurn = {
  prompt: string;
  model: string;
  /** Continue this session: `resume` (the same session, a follow-up turn) or `fork` (a copy of it). */
  session?: { id: string; how: 'resume' | 'fork' };
  /** A file holding the plan's systemPrompt: it replaces Codex's own instructions. */
  instructionsFile?: string;
  appendSystemPrompt?: string;
  providerBaseUrl: string;
  mark: string;
  maxRetries: number;
  /** More `-c` settings (the codon's MCP servers: codex-mcp.ts); never a secret, as `ps` shows them. */
  settings?: readonly string[];
};

/** `codex exec [resume|fork <id>] --json ... -- <prompt>`: headless, no approvals, no sandbox. */
export function codexArgs(turn: CodexTurn): string[] {
  const args = ['exec'];
  if (turn.session) args.push(turn.session.how);
  args.push(
    '--json',
    '--skip-git-repo-check',
    // Ribosome's checkpoints are the undo; Codex's sandbox would also end a tool's children with it.
    '--dangerously-bypass-approvals-and-sandbox',
    '-m',
    turn.model,
  );
  const settings = [...providerOverrides(turn), ...(turn.settings ?? [])];
  if (turn.instructionsFile) settings.push(`model_instructions_file=${toml(turn.instructionsFile)}`);
  if (turn.appendSystemPrompt) settings.push(`developer_instructions=${toml(turn.appendSystemPrompt)}`);
  for (const setting of settings) args.push('-c', setting);
  // After `--` nothing is an option, a prompt that starts with `-` included.
  args.push('--');
  if (turn.session) args.push(turn.session.id);
  args.push(turn.prompt);
  return args;
}

/** RIBOSOME_CODEX_MAX_RETRIES from the codon's env, else the server's, else the default. */
export function maxRetries(codonEnv: Record<string, string>, env: NodeJS.ProcessEnv = process.env): number {
  const text = codonEnv.RIBOSOME_CODEX_MAX_RETRIES ?? env.RIBOSOME_CODEX_MAX_RETRIES;
  const value = text === undefined ? Number.NaN : Number(text);
  return Number.isInteger(value) && value >= 0 ? value : DEFAULT_MAX_RETRIES;
}

/**
 * Codex's key: the plan provider's apiKeyEnv value when it names one, else OPENAI_API_KEY as the
 * server has it; for a provider on this machine (the scripted one, a local gateway) without either, a
 * placeholder, as Codex refuses to start without the variable. `base` is the agent's environment
 * (providerEnv: the plan's key variables already gone).
 */
export function codexEnv(
  base: NodeJS.ProcessEnv,
  options: Pick<AgentStart, 'apiKeyEnv' | 'providerBaseUrl'>,
  serverEnv: NodeJS.ProcessEnv = process.env,
): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...base };
  // Claude's credentials (where providerEnv put the apiKeyEnv value too) are another endpoint's:
  // Codex reads its own variable alone.
  for (const name of CREDENTIAL_VARS) delete env[name];
  const key = serverEnv[options.apiKeyEnv || CODEX_KEY_VAR];
  return withAgentKey(env, CODEX_KEY_VAR, key, options.providerBaseUrl);
}
