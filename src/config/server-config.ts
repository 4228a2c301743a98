import { readFileSync } from 'node:fs';
import { extname } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { ClaudeConfig } from '../plan/primitives.ts';
import { Budget, Notify } from '../plan/unattended-schema.ts';

const MiB = 1024 * 1024;

/**
 * Settings of the control server. Precedence: defaults < config file < environment < command line.
 * Every field has its default here, beside its meaning.
 */
export const ServerSettings = z.object({
  /** Address to bind; loopback unless the user opts in to more. */
  host: z.string().min(1).default('127.0.0.1'),
  /** 0 = a dynamic port. */
  port: z.number().int().min(0).max(65535).default(0),
  /** Browser origins allowed to open a WebSocket besides loopback pages; '*' allows any. */
  allowOrigins: z.array(z.string()).default([]),
  /** Start the next codon by itself after each one. */
  autostart: z.boolean().default(true),
  /** full = fsync each commit (survives power loss); normal = survives a killed process only. */
  journalSync: z.enum(['full', 'normal']).default('full'),
  logLevel: z.enum(['trace', 'debug', 'info', 'warn', 'error', 'fatal']).default('info'),
  /** Webhooks told about every run of this server, beside the plan's own `notify` (README "Notifications"). */
  notify: Notify.default([]),
  /** The run's budget over the plan's, limit by limit (`--max-cost`, `--max-time` over this). */
  budget: Budget.optional(),
  /** Whose Claude Code configuration the claude-code agent uses; the plan's claudeConfig wins. */
  claudeConfig: ClaudeConfig.optional(),
  limits: z
    .object({
      /** A command frame over this gets MESSAGE_TOO_LARGE (real commands are a few hundred bytes). */
      maxFrameBytes: z
        .number()
        .int()
        .positive()
        .default(1 * MiB),
      /** A frame over this closes the connection (1009) before it is buffered whole. */
      hardMaxFrameBytes: z
        .number()
        .int()
        .positive()
        .default(4 * MiB),
      maxBufferedBytes: z
        .number()
        .int()
        .positive()
        .default(8 * MiB),
      /** WebSocket clients at once (`--max-clients`); one more gets HTTP 503. */
      maxClients: z.number().int().positive().default(64),
      /** A connection must complete its upgrade, then send its handshake, each within this. */
      handshakeTimeoutMs: z.number().int().positive().default(10_000),
      heartbeatMs: z.number().int().positive().default(30_000),
      closeGraceMs: z.number().int().positive().default(5_000),
      historyBatchEvents: z.number().int().positive().default(1_000),
      historyBatchBytes: z
        .number()
        .int()
        .positive()
        .default(1 * MiB),
      handshakeHistoryEvents: z.number().int().nonnegative().default(1_000),
      handshakeHistoryBytes: z
        .number()
        .int()
        .positive()
        .default(4 * MiB),
    })
    // prefault: an absent `limits` is parsed as {}, so every inner default applies.
    .prefault({}),
});
export type ServerSettings = z.infer<typeof ServerSettings>;

export type ConfigProblem = { ok: false; message: string };

/** Reads a YAML or JSON config file into a plain object (validated by each consumer's schema). */
export function readConfigFile(file: string): { ok: true; value: Record<string, unknown> } | ConfigProblem {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    return { ok: false, message: `cannot read config file ${file}: ${(error as Error).message}` };
  }
  try {
    const value: unknown = extname(file) === '.json' ? JSON.parse(text) : parseYaml(text);
    if (value === null || value === undefined) return { ok: true, value: {} };
    if (typeof value !== 'object' || Array.isArray(value)) {
      return { ok: false, message: `config file ${file} must hold a mapping of settings` };
    }
    return { ok: true, value: value as Record<string, unknown> };
  } catch (error) {
    return { ok: false, message: `config file ${file} is not valid YAML/JSON: ${(error as Error).message}` };
  }
}

/** Merges layers (later wins, nested `limits` and `budget` merged key by key) and validates the result. */
export function resolveServerSettings(
  ...layers: Array<Record<string, unknown> | undefined>
): { ok: true; value: ServerSettings } | ConfigProblem {
  const merged: Record<string, unknown> = {};
  for (const layer of layers) {
    if (!layer) continue;
    for (const [key, value] of Object.entries(layer)) {
      if (value === undefined) continue;
      if ((key === 'limits' || key === 'budget') && typeof value === 'object' && value !== null) {
        merged[key] = { ...(merged[key] as object | undefined), ...value };
      } else {
        merged[key] = value;
      }
    }
  }
  const known = Object.fromEntries(Object.entries(merged).filter(([k]) => k in ServerSettings.shape));
  const parsed = ServerSettings.safeParse(known);
  if (!parsed.success) return { ok: false, message: `invalid settings: ${z.prettifyError(parsed.error)}` };
  return { ok: true, value: parsed.data };
}
