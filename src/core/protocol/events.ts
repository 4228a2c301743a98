import { z } from 'zod';
import { BudgetLimits } from './budget.ts';
import { CodonMessageData } from './codon-message.ts';
import { DashboardTicketData } from './dashboard-ticket.ts';
import { extendedEnum, ours } from './extension.ts';
import { Iso, serverStateEvents } from './server-state-events.ts';
import { ClientMode, FileNode } from './shared.ts';

export { ModelUsageEntry } from './server-state-events.ts';

/** Event payloads (spec section 6), keyed by event type: 6.1 to 6.3 in server-state-events.ts. */

const SentinelStrategy = z.enum(['immediate', 'debounce', 'count', 'timeWindow']);

export const ServerEventEnvelope = z.object({
  id: z.string(),
  timestamp: Iso,
  type: z.string(),
  data: z.record(z.string(), z.unknown()),
});
export type ServerEventEnvelope = z.infer<typeof ServerEventEnvelope>;

/** An MCP tool call's server and tool (docs/mcp.md): its toolName is then `mcp__<server>__<tool>` for every agent. */
const MCP_SERVER_FIELD = ours(
  z.string().optional(),
  "For a call of an MCP server's tool (docs/mcp.md): the server's name, as the plan's mcpServers names it; toolName is then `mcp__<server>__<tool>` whatever the agent.",
);
const MCP_TOOL_FIELD = ours(
  z.string().optional(),
  "For a call of an MCP server's tool: the tool's name, as the server gives it.",
);

// --- 6.4 Agentic Backbone -----------------------------------------------------------------------------
const backbone = {
  'assistant.action': z.object({
    codonId: z.string(),
    action: z.enum(['thinking', 'message', 'tool_use']),
    content: z.string(),
    toolName: z.string().optional(),
    toolInput: z.record(z.string(), z.unknown()).optional(),
    toolUseId: ours(
      z.string().optional(),
      "For `tool_use`: the call's id, the `toolUseId` of its `tool.result` (absent in journals written before it was added).",
    ),
    mcpServer: MCP_SERVER_FIELD,
    mcpTool: MCP_TOOL_FIELD,
  }),
  'tool.result': z.object({
    codonId: z.string(),
    toolUseId: z.string(),
    toolName: z.string(),
    result: z.string(),
    truncated: z.boolean(),
    originalLength: z.number(),
    executionTimeMs: z.number(),
    isError: z.boolean(),
    mcpServer: MCP_SERVER_FIELD,
    mcpTool: MCP_TOOL_FIELD,
  }),
  'file.updated': z.object({
    path: z.string(),
    filename: z.string(),
    content: z.string(),
    action: z.enum(['created', 'modified', 'deleted']),
    ignored: ours(
      z.literal(true).optional(),
      '`true` when checkpoints leave the file out (a .gitignore matches it): export never carries it; absent otherwise, or when the server could not tell.',
    ),
  }),
  'filetree.updated': z.object({ tree: z.array(FileNode) }),
  // Ours: a message to the running agent (docs/steering.md).
  'codon.message': CodonMessageData,
};

// --- 6.5 Sentinel -------------------------------------------------------------------------------------
const sentinel = {
  'sentinel.loaded': z.object({
    sentinelId: z.string(),
    codonId: z.string(),
    model: z.string(),
    triggerType: z.enum(['event', 'sequence']),
    executionStrategy: SentinelStrategy,
    conversational: z.boolean(),
    source: z.enum(['file', 'inline']),
    sourcePath: z.string().optional(),
  }),
  'sentinel.unloaded': z.object({
    sentinelId: z.string(),
    codonId: z.string(),
    reason: z.enum(['codon-complete', 'fatal-error', 'consecutive-failures', 'shutdown']),
    errorType: z.enum(['template', 'configuration', 'corruption', 'resource']).optional(),
    finalCost: z.number(),
    llmCallCount: z.number(),
  }),
  'sentinel.output': z.object({
    sentinelId: z.string(),
    codonId: z.string(),
    triggerNumber: z.number(),
    outputType: z.enum(['text', 'structured']),
    content: z.union([z.string(), z.record(z.string(), z.unknown())]),
    cost: z.number(),
    tokens: z.object({ input: z.number(), output: z.number() }),
    eventCount: z.number(),
  }),
  'sentinel.error': z.object({
    sentinelId: z.string(),
    codonId: z.string(),
    // Ours: action-failed (a sentinel action was refused or failed; docs/sentinels.md#sentinel-actions).
    errorType: extendedEnum(
      ['llm-call-failed', 'template-render-failed', 'file-write-failed'],
      ['action-failed'],
    ),
    message: z.string(),
    retriable: z.boolean(),
    consecutiveFailureCount: z.number(),
  }),
  'sentinel.action': ours(
    z.object({
      sentinelId: z.string(),
      codonId: z.string(),
      /** The call whose output called for the action. */
      triggerNumber: z.number(),
      /** `comment` (ours, docs/review.md): a review comment on the codon's diff. */
      action: z.enum(['message', 'halt', 'rollback', 'redo', 'comment']),
      /** Announced only: the sentinel's dryRun is on, nothing is done. */
      dryRun: z.boolean(),
      /** What matched, e.g. `repeating equals true (3 times)`. */
      reason: z.string(),
      /** The rendered text of a message or a comment, or what a redo adds to the prompt. */
      text: z.string().optional(),
    }),
    'A sentinel action, sent before it takes effect (docs/sentinels.md#sentinel-actions).',
  ),
  'sentinel.triggered': z.object({
    sentinelId: z.string(),
    codonId: z.string(),
    triggerNumber: z.number(),
    strategy: SentinelStrategy,
    eventCount: z.number(),
    queueSize: z.number(),
  }),
};

// --- 6.6 Connection State (never journaled) ------------------------------------------------------------
const connection = {
  'handshake.response': z.object({
    clientId: z.string(),
    mode: ClientMode,
    eventHistory: z.array(ServerEventEnvelope),
    totalEvents: z.number(),
  }),
  'server.ready': z.object({
    serverVersion: z.string(),
    executionPath: z.string(),
    agentRootPath: z.string(),
    dataPath: z.string(),
    port: z.number(),
    plan: ours(
      z
        .object({
          name: z.string(),
          codons: z.array(
            z.object({
              codonId: z.string(),
              codonName: z.string(),
              description: z.string().optional(),
              index: z.number().int(),
              /** The agent that runs it (a plan may give each codon its own); servers before issue 18 omit it. */
              agent: z.string().optional(),
            }),
          ),
        })
        .optional(),
      "The plan's codons in run order, so clients can show those not started yet.",
    ),
    proxy: ours(
      z.object({ enabled: z.boolean(), url: z.string().optional() }).optional(),
      'Whether the LLM proxy runs, and where.',
    ),
    budget: ours(
      BudgetLimits.optional(),
      "The run's budget (the plan's, under the config file and --max-cost/--max-time), when set.",
    ),
    resumed: ours(
      z
        .object({
          /** How many runs the execution directory holds, this one included. */
          runCount: z.number().int(),
          /** Codons completed or skipped in the current lineage, and the plan's count. */
          done: z.number().int(),
          total: z.number().int(),
          /** What codon.next starts (absent when every codon is done). */
          nextCodonId: z.string().optional(),
          /** The codon whose approval wait this server takes over from the previous one (nothing starts before it ends). */
          approvalWaitCodonId: z.string().optional(),
          /** How the previous run ended (crashed: its server was killed; failed: it stopped after a failure). */
          previousRunStatus: z.enum(['completed', 'failed', 'crashed']),
          /** The previous run was brought back to its last clean point (a crash or a failure). */
          recovered: z.boolean(),
        })
        .optional(),
      'What this server goes on with when the execution directory already had runs.',
    ),
  }),
  pong: z.object({ message: z.literal('pong'), timestamp: Iso, clientId: z.string().optional() }),
  'history.batch': z.object({ events: z.array(ServerEventEnvelope), hasMore: z.boolean() }),
  // Ours: a dashboard page's upgrade credential (docs/dashboard.md#access-token).
  'dashboard.ticket': DashboardTicketData,
  /** Deprecated (spec 9): kept so old clients learn of a codon a crash interrupted. */
  'incomplete.codon': z.object({ codonId: z.string(), codonName: z.string(), message: z.string() }),
};

export const eventDataSchemas = { ...serverStateEvents, ...backbone, ...sentinel, ...connection };
export type EventType = keyof typeof eventDataSchemas;
export type EventData<T extends EventType> = z.infer<(typeof eventDataSchemas)[T]>;
/** The payload a publisher passes (fields with defaults may be left out). */
export type EventInput<T extends EventType> = z.input<(typeof eventDataSchemas)[T]>;

export type EventCategory = 'server-state' | 'agentic-backbone' | 'sentinel' | 'connection';
function categorize<K extends string>(keys: Record<K, unknown>, category: EventCategory) {
  return Object.fromEntries(Object.keys(keys).map((k) => [k, category])) as Record<K, EventCategory>;
}
export const eventCategory: Record<EventType, EventCategory> = {
  ...categorize(serverStateEvents, 'server-state'),
  ...categorize(backbone, 'agentic-backbone'),
  ...categorize(sentinel, 'sentinel'),
  ...categorize(connection, 'connection'),
};

export const EVENT_TYPES = Object.keys(eventDataSchemas) as EventType[];

function event<T extends EventType>(type: T) {
  return z.object({ id: z.string(), timestamp: Iso, type: z.literal(type), data: eventDataSchemas[type] });
}
type EventSchemaOf<T extends EventType> = ReturnType<typeof event<T>>;

export const eventSchemas = Object.fromEntries(EVENT_TYPES.map((t) => [t, event(t)])) as {
  [T in EventType]: EventSchemaOf<T>;
};

export type ServerEventOf<T extends EventType> = {
  id: string;
  timestamp: string;
  type: T;
  data: EventData<T>;
};
export type ServerEvent = { [T in EventType]: ServerEventOf<T> }[EventType];

/** Parses any server event with the schema of its own type; unknown types are refused. */
export function parseServerEvent(
  raw: unknown,
): { ok: true; event: ServerEvent } | { ok: false; error: string } {
  // The common case first: a known type, checked by its own schema alone (which checks the envelope
  // too). Checking the generic envelope as well first cost four times as much per event (a million
  // events of a history.sync); it still words the error of anything that fails.
  const type = typeof raw === 'object' && raw !== null ? (raw as { type?: unknown }).type : undefined;
  if (typeof type === 'string' && isEventType(type)) {
    const parsed = eventSchemas[type].safeParse(raw);
    if (parsed.success) return { ok: true, event: parsed.data as ServerEvent };
  }
  return explainServerEvent(raw);
}

/** Why `raw` is not a server event (or, should it be one after all, the event). */
function explainServerEvent(raw: unknown): { ok: true; event: ServerEvent } | { ok: false; error: string } {
  const envelope = ServerEventEnvelope.safeParse(raw);
  if (!envelope.success) return { ok: false, error: z.prettifyError(envelope.error) };
  const type = envelope.data.type;
  if (!isEventType(type)) return { ok: false, error: `unknown event type "${type}"` };
  const parsed = eventSchemas[type].safeParse(raw);
  if (!parsed.success) return { ok: false, error: `${type}: ${z.prettifyError(parsed.error)}` };
  return { ok: true, event: parsed.data as ServerEvent };
}

export function isEventType(type: string): type is EventType {
  return Object.hasOwn(eventDataSchemas, type);
}
