import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { z } from 'zod';
import { CREDENTIAL_VARS } from '../../platform/credentials/credentials.ts';
import type { AgentStart } from '../agent-adapter.ts';
import { agentBaseEnv } from '../agent-env.ts';
import type { AgentCli } from '../cli-binary.ts';
import { parseJsonLine } from '../json-line.ts';
import { withAgentKey } from '../provider-env.ts';

/** Gemini CLI (`@google/gemini-cli`): doctor and the gemini agent find it by this. */
export const GEMINI_CLI: AgentCli = {
  name: 'Gemini CLI',
  envVar: 'RIBOSOME_GEMINI_BIN',
  pkg: '@google/gemini-cli',
  bin: 'gemini',
};

/** The variable Gemini CLI reads its API key from. */
export const GEMINI_KEY_VAR = 'GEMINI_API_KEY';

/** Attempts of each model request in Gemini CLI's own configuration: its default (10, backing off up to 30 s) would hold a rate-limited codon for minutes. */
export const DEFAULT_MAX_ATTEMPTS = 3;

/** Variables that would point Gemini CLI at another auth than its API key. */
const OTHER_AUTH = ['GOOGLE_GENAI_USE_VERTEXAI', 'GOOGLE_GENAI_USE_GCA', 'GOOGLE_API_KEY'];

/** Claude's credentials and provider: another endpoint's, never Gemini CLI's. */
const CLAUDE_VARS = [...CREDENTIAL_VARS, 'ANTHROPIC_BASE_URL'];

/** Gemini CLI's own default model (without its router, which asks a model first to choose one). */
export const GEMINI_DEFAULT_MODEL = 'gemini-2.5-pro';

/** The model Gemini CLI is told to use: the codon's, unless it is the engine's Claude default. */
export function geminiModel(model: string): string {
  return model === '' || /^claude-/i.test(model) ? GEMINI_DEFAULT_MODEL : model;
}

/**
 * The arguments of one headless run: the prompt as an argument (stdin stays closed), stream-json out,
 * every tool allowed (`--yolo`: Ribosome's checkpoints are the undo), the agent root trusted for the
 * run. `resume`: continue that session in place (a follow-up turn of the same codon); `fork`: start a
 * new session from a copy of that session's file (Gemini CLI's `--session-file`), which stays as it was.
 */
export function geminiArgs(options: {
  prompt: string;
  model: string;
  resume?: string;
  fork?: string;
  /** The data directory's policy file (dataDirPolicy) and where the link leads, for its file tools to read. */
  dataDir?: { policy: string; target: string };
}): string[] {
  const args = ['-p', options.prompt, '--output-format', 'stream-json', '--yolo', '--skip-trust'];
  args.push('-m', geminiModel(options.model));
  if (options.dataDir) {
    args.push('--policy', options.dataDir.policy, '--include-directories', options.dataDir.target);
  }
  if (options.fork) args.push('--session-file', options.fork);
  else if (options.resume) args.push('--resume', options.resume);
  return args;
}

/**
 * `~/.gemini/settings.json` of its own configuration: the API key as its auth (without it, exit 41),
 * nothing sent home (telemetry, usage statistics, update checks), and model requests attempted
 * `maxAttempts` times; the codon's MCP servers when it has some (gemini-mcp.ts).
 */
export function geminiSettings(maxAttempts: number, mcpServers?: Record<string, unknown>): string {
  return `${JSON.stringify(
    {
      security: { auth: { selectedType: 'gemini-api-key' } },
      general: { enableAutoUpdate: false, enableAutoUpdateNotification: false, maxAttempts },
      telemetry: { enabled: false },
      privacy: { usageStatisticsEnabled: false },
      ...(mcpServers ? { mcpServers } : {}),
    },
    null,
    2,
  )}\n`;
}

/**
 * A policy (Gemini CLI's policy engine, `--policy`) that denies its file-writing tools any path in the
 * data directory: through its link (`ribosome-data/...`, relative or absolute) or where it leads. Its
 * file tools keep to the workspace, so the link's target is included for them to read; its shell is
 * not confined (as Claude Code's Bash is not).
 */
export function dataDirPolicy(link: string, target: string): string {
  const literal = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const rule = (pattern: string) =>
    `[[rule]]\ntoolName = ["write_file", "replace"]\nargsPattern = ${JSON.stringify(pattern)}\ndecision = "deny"\npriority = 999\n`;
  return [
    rule(`"file_path":"[^"]*${literal(basename(link))}/`),
    rule(`"file_path":"${literal(target)}/`),
  ].join('\n');
}

/** `RIBOSOME_GEMINI_MAX_ATTEMPTS` (1 to 10, Gemini CLI's own limit), else DEFAULT_MAX_ATTEMPTS. */
export function maxAttemptsOf(env: NodeJS.ProcessEnv): number {
  const value = Number(env.RIBOSOME_GEMINI_MAX_ATTEMPTS);
  return Number.isInteger(value) && value >= 1 && value <= 10 ? value : DEFAULT_MAX_ATTEMPTS;
}

/** How Gemini CLI may authenticate in the user's own configuration besides the key (Vertex AI, Google's key). */
const USER_AUTH = [
  ...OTHER_AUTH,
  'GOOGLE_CLOUD_PROJECT',
  'GOOGLE_CLOUD_LOCATION',
  'GOOGLE_APPLICATION_CREDENTIALS',
];

/**
 * Gemini CLI's environment: built for it from the server's (agentBaseEnv), pointed at the codon's
 * provider (GOOGLE_GEMINI_BASE_URL is the provider's root; Gemini CLI adds `/v1beta/models/...`), with
 * its key in GEMINI_API_KEY: the plan provider's `apiKeyEnv` value when it names one, else the
 * server's GEMINI_API_KEY, else, for a provider on this machine (the scripted one, a local gateway), a
 * placeholder. None of the plan's key variables and none of Claude's credentials reach it; in the
 * user's configuration (not `isolated`) the variables that choose another auth (Vertex AI,
 * GOOGLE_API_KEY) do. Pure.
 */
export function geminiEnv(
  server: NodeJS.ProcessEnv,
  options: Pick<AgentStart, 'providerBaseUrl' | 'apiKeyEnv' | 'keyVars'> & { isolated: boolean },
): NodeJS.ProcessEnv {
  const keyVars = options.keyVars ?? [];
  const env = agentBaseEnv(server, keyVars);
  for (const name of CLAUDE_VARS) delete env[name];
  if (!options.isolated) {
    for (const name of USER_AUTH) {
      const value = server[name];
      if (value !== undefined && !keyVars.includes(name)) env[name] = value;
    }
  }
  // GEMINI_API_KEY as another provider's key variable is that provider's, not this one's.
  const own = keyVars.includes(GEMINI_KEY_VAR) ? undefined : server[GEMINI_KEY_VAR];
  const key = options.apiKeyEnv === undefined ? own : server[options.apiKeyEnv];
  return {
    ...withAgentKey(env, GEMINI_KEY_VAR, key, options.providerBaseUrl),
    GOOGLE_GEMINI_BASE_URL: options.providerBaseUrl.replace(/\/+$/, ''),
    // Without it Gemini CLI relaunches itself in a child process and ignores SIGTERM.
    GEMINI_CLI_NO_RELAUNCH: 'true',
  };
}

/**
 * The file Gemini CLI keeps session `id` in under `home` (`.gemini/tmp/<project>/chats/session-<time>-<first 8 of
 * id>.jsonl`), for a fork; the most recently written when several carry it (an imported session leaves
 * a stub beside its file). Undefined when there is none.
 */
export function sessionFileOf(home: string, id: string): string | undefined {
  const tmp = join(home, '.gemini', 'tmp');
  if (!existsSync(tmp)) return undefined;
  const suffix = `-${id.slice(0, 8)}.jsonl`;
  let best: { path: string; updated: string } | undefined;
  for (const project of readdirSync(tmp)) {
    const chats = join(tmp, project, 'chats');
    if (!existsSync(chats)) continue;
    for (const name of readdirSync(chats)) {
      if (!name.startsWith('session-') || !name.endsWith(suffix)) continue;
      const path = join(chats, name);
      const header = sessionHeader(path);
      if (header?.sessionId !== id) continue;
      if (!best || header.lastUpdated > best.updated) best = { path, updated: header.lastUpdated };
    }
  }
  return best?.path;
}

const SessionHeader = z.looseObject({ sessionId: z.string() });

/** The session id and last update of a session file: its first line, and the latest `lastUpdated` after it. */
function sessionHeader(path: string): { sessionId: string; lastUpdated: string } | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
  const [first = ''] = text.split('\n', 1);
  const parsed = parseJsonLine(first, SessionHeader);
  if (!parsed.ok) return undefined;
  const { sessionId } = parsed.value;
  const stamps = [...text.matchAll(/"lastUpdated":"([^"]+)"/g)].map((m) => m[1] ?? '');
  return { sessionId, lastUpdated: stamps.sort().at(-1) ?? '' };
}
