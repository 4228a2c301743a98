import { z } from 'zod';
import { ClaudeConfig } from '../primitives.ts';
import { SandboxSetting } from '../sandbox-schema.ts';
import { Budget, Notify } from '../unattended-schema.ts';

const MiB = 1024 * 1024;

/**
 * Settings of the control server. Precedence: defaults < config file < environment < command line.
 * Every field has its default here, beside its meaning.
 */
export const ServerSettings = z.object({
  host: z
    .string()
    .min(1)
    .default('127.0.0.1')
    .describe('Address to bind (--host over it); loopback unless you opt in to more. Default 127.0.0.1.'),
  port: z
    .number()
    .int()
    .min(0)
    .max(65535)
    .default(0)
    .describe('WebSocket port, 0 to 65535 (--port over it); 0 = a dynamic port. Default 0.'),
  allowOrigins: z
    .array(z.string())
    .default([])
    .describe(
      "Browser origins allowed to open a WebSocket besides Ribosome's own dashboards (--allow-origin); '*' allows any.",
    ),
  autostart: z
    .boolean()
    .default(true)
    .describe('Start the next codon by itself after each one (--no-autostart: false). Default true.'),
  journalSync: z
    .enum(['full', 'normal'])
    .default('full')
    .describe(
      'full (default): fsync each commit, survives power loss; normal: survives a killed process only.',
    ),
  logLevel: z
    .enum(['trace', 'debug', 'info', 'warn', 'error', 'fatal'])
    .default('info')
    .describe('Least level written to the server log (.ribosome/logs/server.log). Default info.'),
  notify: Notify.default([]).describe(
    "Webhooks told about every run of this server, beside the plan's own notify (docs/unattended.md#notifications).",
  ),
  budget: Budget.optional().describe(
    "The run's budget over the plan's, limit by limit (--max-cost, --max-time over this).",
  ),
  claudeConfig: ClaudeConfig.optional().describe(
    "Whose Claude Code configuration the claude-code agent uses: isolated (default) or user; the plan's claudeConfig wins.",
  ),
  agentConfig: ClaudeConfig.optional().describe(
    "Whose configuration the codex, gemini and opencode agents (and claude-code without a claudeConfig) use: isolated (default) or user; the plan's agentConfig wins.",
  ),
  sandbox: SandboxSetting.optional().describe(
    "How agents are confined (docs/agents.md#the-sandbox): auto (default), on, off, or settings; under the plan's and codons' sandbox, its lists first; --sandbox and --no-sandbox replace the mode.",
  ),
  limits: z
    .strictObject({
      maxFrameBytes: z
        .number()
        .int()
        .positive()
        .default(1 * MiB)
        .describe('A command frame over this gets MESSAGE_TOO_LARGE. Default 1048576 (1 MiB).'),
      hardMaxFrameBytes: z
        .number()
        .int()
        .positive()
        .default(4 * MiB)
        .describe('A frame over this closes the connection (1009) before it is buffered. Default 4 MiB.'),
      maxBufferedBytes: z
        .number()
        .int()
        .positive()
        .default(8 * MiB)
        .describe('A client this far behind is closed (1008, send buffer overflow). Default 8 MiB.'),
      maxClients: z
        .number()
        .int()
        .positive()
        .default(64)
        .describe('WebSocket clients at once (--max-clients over it); one more gets HTTP 503. Default 64.'),
      handshakeTimeoutMs: z
        .number()
        .int()
        .positive()
        .default(10_000)
        .describe(
          'A connection must complete its upgrade, then its handshake, each within this. Default 10000.',
        ),
      heartbeatMs: z
        .number()
        .int()
        .positive()
        .default(30_000)
        .describe('Ping interval; a peer that misses one is terminated. Default 30000.'),
      closeGraceMs: z
        .number()
        .int()
        .positive()
        .default(5_000)
        .describe('Time a client being closed gets to take the close frame. Default 5000.'),
      historyBatchEvents: z
        .number()
        .int()
        .positive()
        .default(1_000)
        .describe('Most events in one history.batch. Default 1000.'),
      historyBatchBytes: z
        .number()
        .int()
        .positive()
        .default(1 * MiB)
        .describe('Most bytes in one history.batch. Default 1 MiB.'),
      handshakeHistoryEvents: z
        .number()
        .int()
        .nonnegative()
        .default(1_000)
        .describe("Most events in the handshake's eventHistory. Default 1000."),
      handshakeHistoryBytes: z
        .number()
        .int()
        .positive()
        .default(4 * MiB)
        .describe("Most bytes in the handshake's eventHistory. Default 4 MiB."),
      messageQueueMessages: z
        .number()
        .int()
        .positive()
        .default(100)
        .describe(
          'Messages (codon.message, sentinel messages) the running agent may have waiting, sent and not yet taken up; one more gets MESSAGE_QUEUE_FULL. Default 100.',
        ),
      messageQueueBytes: z
        .number()
        .int()
        .positive()
        .default(1 * MiB)
        .describe(
          'UTF-8 bytes of the messages waiting for the running agent; a message past it gets MESSAGE_QUEUE_FULL. Default 1 MiB.',
        ),
      messageRate: z
        .number()
        .positive()
        .default(5)
        .describe(
          'codon.message per second one client may send, after a burst of messageBurst; faster ones get RATE_LIMITED. Default 5.',
        ),
      messageBurst: z
        .number()
        .int()
        .positive()
        .default(20)
        .describe('codon.message one client may send at once before messageRate applies. Default 20.'),
    })
    // prefault: an absent `limits` is parsed as {}, so every inner default applies.
    .prefault({})
    .describe(
      'Connection and memory limits of the control server (docs/protocol.md#the-control-protocol-in-practice).',
    ),
});
export type ServerSettings = z.infer<typeof ServerSettings>;

export type ConfigProblem = { ok: false; message: string };

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
