import { posix } from 'node:path';
import { z } from 'zod';
import { parseTarget } from '../platform/http/target.ts';

/**
 * Small shared building blocks of the plan and sentinel schemas. Each pattern carries its own
 * explanation so a failed match turns into a message a user can act on (see `formatRules`).
 */

/** Letters, digits, `-`, `_`, `.`; starts with a letter or digit so `.` and `..` never name a path. */
export const ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;
export const ID_MAX_LENGTH = 128;
/** One directory name; `rigArchive` is taken in the execution directory (and `.ribosome` by the pattern). */
export const AGENT_ROOT_PATTERN = /^(?!rigArchive$)[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;
/** POSIX-portable environment variable names. */
export const ENV_NAME_PATTERN = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** A model id as a provider takes it: printable, no spaces. */
export const MODEL_ID_PATTERN = /^[\x21-\x7e]+$/;
/** A dotted path into an event, e.g. `data.toolName` or `data.items.0`. */
export const EVENT_PATH_PATTERN = /^[A-Za-z_$][\w$-]*(\.([A-Za-z_$][\w$-]*|\d+))*$/;

/**
 * An MCP server's name (docs/mcp.md): what the agents prefix its tools with (Claude Code `mcp__NAME__TOOL`,
 * opencode `NAME_TOOL`). No `__`, so a tool's full name splits back into server and tool.
 */
export const MCP_SERVER_NAME_PATTERN = /^(?!.*__)[A-Za-z0-9][A-Za-z0-9_-]{0,39}$/;

/** Node's timers overflow above 2^31-1 ms (about 24.8 days) and fire at once, so cap every timeout. */
export const MAX_TIMEOUT_MS = 2_147_483_647;

export type FormatRule = { code: 'INVALID_ID' | 'INVALID_VALUE'; what: string; hint: string };

/** Explanations of the patterns above, keyed by the pattern text zod reports in `invalid_format` issues. */
export const formatRules = new Map<string, FormatRule>([
  [
    String(ID_PATTERN),
    {
      code: 'INVALID_ID',
      what: 'a valid id',
      hint: 'Use letters, digits, "-", "_" and "." and start with a letter or digit; "#" is reserved for loop iterations (e.g. refine#0).',
    },
  ],
  [
    String(AGENT_ROOT_PATTERN),
    {
      code: 'INVALID_VALUE',
      what: 'a valid directory name',
      hint: 'Use one directory name of letters, digits, "-", "_" and ".", starting with a letter or digit, other than rigArchive.',
    },
  ],
  [
    String(ENV_NAME_PATTERN),
    {
      code: 'INVALID_VALUE',
      what: 'a valid environment variable name',
      hint: 'Use letters, digits and "_", not starting with a digit (e.g. API_URL).',
    },
  ],
  [
    String(MCP_SERVER_NAME_PATTERN),
    {
      code: 'INVALID_VALUE',
      what: 'a valid MCP server name',
      hint: 'Use letters, digits, "-" and "_", starting with a letter or digit, at most 40 characters and never "__" (agents name its tools mcp__<server>__<tool>), e.g. files or web-search.',
    },
  ],
  [
    String(EVENT_PATH_PATTERN),
    {
      code: 'INVALID_VALUE',
      what: 'a valid event path',
      hint: 'Write a dotted path into the event, e.g. data.toolName or data.toolInput.command.',
    },
  ],
]);

export const Id = z
  .string()
  .max(ID_MAX_LENGTH)
  .regex(ID_PATTERN)
  .describe('Letters, digits, "-", "_", "."; starts with a letter or digit. "#" is reserved for loops.');

export const TimeoutMs = z
  .number()
  .int()
  .min(1)
  .max(MAX_TIMEOUT_MS)
  .describe(`Milliseconds, 1 to ${MAX_TIMEOUT_MS} (about 24.8 days).`);

export const Env = z
  .record(z.string().regex(ENV_NAME_PATTERN), z.string())
  .describe('Environment variables for the agent. Values are strings: quote numbers and booleans.');

export const Agent = z
  .enum(['builtin', 'claude-code', 'codex', 'gemini', 'opencode'])
  .describe(
    "Which agent runs the codon: Ribosome's own loop (builtin), the Claude Code CLI (claude-code), the Codex CLI (codex), the Gemini CLI (gemini) or opencode (opencode).",
  );
export type Agent = z.infer<typeof Agent>;

export const ClaudeConfig = z
  .enum(['isolated', 'user'])
  .describe(
    "isolated (default): Claude Code runs with a config directory of its own in the execution directory. user: with the user's own ~/.claude (their `claude login`, settings and hooks).",
  );
export type ClaudeConfig = z.infer<typeof ClaudeConfig>;

export const Model = z.string().min(1).describe('Model id passed to the provider, e.g. claude-sonnet-4-5.');

export const Provider = z
  .strictObject({
    baseUrl: z
      .string()
      .min(1)
      .superRefine((url, ctx) => {
        const target = parseTarget(url);
        if (target.ok) return;
        ctx.addIssue({
          code: 'custom',
          message: `The provider base URL ${target.message}.`,
          ...issueParams(
            'INVALID_VALUE',
            'Write an http or https URL without a user, password, query or fragment, e.g. https://gateway.example.com; put the key in an environment variable named by apiKeyEnv.',
          ),
        });
      })
      .describe('Base URL of the Messages API, e.g. https://api.anthropic.com (`/v1/messages` is added).'),
    apiKeyEnv: z
      .string()
      .regex(ENV_NAME_PATTERN)
      .optional()
      .describe(
        "Name of the server's environment variable holding this provider's API key (sent as x-api-key, instead of the usual credential variables). Absent: ANTHROPIC_API_KEY, ANTHROPIC_AUTH_TOKEN or CLAUDE_CODE_OAUTH_TOKEN as usual.",
      ),
  })
  .describe('An Anthropic Messages compatible endpoint and where its key comes from.')
  .meta({ id: 'Provider' });
export type Provider = z.infer<typeof Provider>;

/** Marks a custom issue with the problem code and fix hint the loader reports. */
export function issueParams(code: string, hint: string): { params: { code: string; hint: string } } {
  return { params: { code, hint } };
}

/**
 * Normalizes a relative path that must stay inside its base directory, or returns undefined when it is
 * absolute or climbs out with `..`. Backslashes count as separators so a plan written on Windows is
 * checked the same way.
 */
export function normalizeInside(path: string): string | undefined {
  const slashed = path.replaceAll('\\', '/');
  if (slashed.startsWith('/') || /^[A-Za-z]:/.test(slashed)) return undefined;
  const normal = posix.normalize(slashed).replace(/\/+$/, '');
  if (normal === '..' || normal.startsWith('../')) return undefined;
  return normal === '' ? '.' : normal;
}

/** A relative path that must not escape its base directory (checked, not rewritten). */
export function insidePath(base: string) {
  return z
    .string()
    .min(1)
    .refine((p) => normalizeInside(p) !== undefined, {
      message: `Path must stay inside ${base}.`,
      ...issueParams('PATH_ESCAPES', `Write a relative path inside ${base}, without a leading "/" or "..".`),
    });
}
