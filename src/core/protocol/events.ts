import { z } from 'zod';
import { BudgetLimits, BudgetStatus } from './budget.ts';
import { CheckpointDiffData } from './checkpoint-diff.ts';
import { CodonMessageData } from './codon-message.ts';
import { DashboardTicketData } from './dashboard-ticket.ts';
import { ErrorCode, ErrorSeverity } from './errors.ts';
import { extendedEnum, ours, oursValues } from './extension.ts';
import {
  CheckpointInfo,
  ClientMode,
  CodonExecution,
  CodonStatus,
  FailureReason,
  FileNode,
  ProcessExit,
  StateTransitionType,
} from './shared.ts';
import { verifyEvents } from './verify-events.ts';

/** Event payloads (spec section 6), keyed by event type. */

const Iso = z.string();
const RollbackStatus = z.enum(['started', 'completed', 'failed', 'partial']);
const SentinelStrategy = z.enum(['immediate', 'debounce', 'count', 'timeWindow']);
/** A rollback's checkpoint type: the spec's, or `initial` (a run's initial checkpoint). */
const InitialAllowed = oursValues(z.string(), ['initial']);

/** One model's share of a codon's usage (token.usage modelUsage; Claude Code's result modelUsage too). */
export const ModelUsageEntry = z.object({
  inputTokens: z.number(),
  outputTokens: z.number(),
  cacheReadInputTokens: z.number().optional(),
  cacheCreationInputTokens: z.number().optional(),
  costUSD: z.number(),
});

export const ServerEventEnvelope = z.object({
  id: z.string(),
  timestamp: Iso,
  type: z.string(),
  data: z.record(z.string(), z.unknown()),
});
export type ServerEventEnvelope = z.infer<typeof ServerEventEnvelope>;

// --- 6.1 Server State -------------------------------------------------------------------------------
const serverState = {
  'server.idle': z.object({
    reason: z.enum(['startup', 'codon-completed', 'all-codons-completed']),
    message: z.string(),
    nextCodonId: ours(
      z.string().optional(),
      'The codon codon.next would start (absent when every codon is done).',
    ),
    lastEnded: ours(
      z.object({ codonId: z.string(), status: CodonStatus }).optional(),
      'The codon that ended last in the current lineage, and how it ended.',
    ),
    passedOver: ours(
      z.array(z.string()).optional(),
      'Codons that failed and were passed over (onFailure then: continue) when the plan ran to its end without them.',
    ),
    heldBy: ours(
      z.enum(['budget']).optional(),
      'An exhausted budget refuses what would start next: the run cannot go on by itself.',
    ),
  }),
  'codon.started': z.object({
    codonId: z.string(),
    codonName: z.string(),
    codonDescription: z.string().optional(),
    sessionId: z.string(),
    previousSessionId: z.string().optional(),
    startTime: Iso,
    attempt: ours(
      z.number().int().min(1).optional(),
      'Which attempt this is (1 for the first; automatic retries count up).',
    ),
    maxAttempts: ours(
      z.number().int().min(1).optional(),
      "The attempts the codon's retry policy allows in all.",
    ),
    model: ours(
      z.string().optional(),
      'The model this attempt runs with (the fallback model once it took over).',
    ),
    agent: ours(
      z.string().optional(),
      "The agent that runs the codon (builtin, claude-code, codex, gemini, opencode): the codon's, else the plan's.",
    ),
    promptMetadata: z
      .object({
        name: z.string().optional(),
        description: z.string().optional(),
        tags: z.array(z.string()).optional(),
        version: z.string().optional(),
        author: z.string().optional(),
      })
      .optional(),
  }),
  'codon.completed': z.object({
    codonId: z.string(),
    success: z.boolean(),
    cost: z.number(),
    costEstimated: ours(
      z.literal(true).optional(),
      "Present when part of `cost` is Ribosome's estimate from its pricing table (an agent that reports no cost).",
    ),
    duration: z.number(),
    exitStatus: ProcessExit,
    failureReason: FailureReason.optional(),
  }),
  'state.snapshot': z.object({
    currentCodon: CodonExecution.optional(),
    completedCodons: z.array(CodonExecution),
    fileTree: z.array(FileNode),
    totalCost: z.number(),
    totalCostEstimated: ours(
      z.literal(true).optional(),
      "Present when part of `totalCost` is Ribosome's estimate from its pricing table (an agent that reports no cost).",
    ),
    totalTime: z.number(),
    isRollingBack: z.boolean(),
    budgets: ours(
      z.array(BudgetStatus).optional(),
      "Spend against each budget in force (the plan's, the active codon's loop and codon), when any is set.",
    ),
  }),
  'token.usage': z.object({
    codonId: z.string(),
    inputTokens: z.number(),
    outputTokens: z.number(),
    cacheCreationTokens: z.number(),
    cacheReadTokens: z.number(),
    totalCost: z.number(),
    modelId: z.string().optional(),
    modelUsage: z.record(z.string(), ModelUsageEntry).optional(),
    costEstimated: ours(
      z.literal(true).optional(),
      "Present when totalCost is Ribosome's estimate from its pricing table: the agent (Codex, Gemini, opencode) reports tokens but no cost.",
    ),
  }),
  info: z.object({ message: z.string() }),
  error: z.object({
    message: z.string(),
    codon: z.string().optional(),
    fatal: z.boolean(),
    severity: ErrorSeverity.optional(),
    context: z.string().optional(),
    code: z.union([ErrorCode, z.string()]).optional(),
    commandId: ours(z.string().optional(), 'The id of the command this error answers, when there was one.'),
  }),
  'checkpoint.list': z.object({
    runId: z.string(),
    checkpoints: z.array(CheckpointInfo),
    currentBranch: z.string(),
  }),
  'checkpoint.diff': CheckpointDiffData,
  'state.transition': z.object({
    transitionType: StateTransitionType,
    runId: z.string().optional(),
    codonId: z.string().optional(),
    transition: z.object({ type: z.string(), data: z.record(z.string(), z.unknown()) }),
    resultingState: z.object({
      currentRunId: z.string().nullable(),
      runCount: z.number(),
      totalCost: z.number(),
      currentRunCost: z.number(),
      totalCostEstimated: ours(z.literal(true).optional(), 'Part of `totalCost` is an estimate.'),
      currentRunCostEstimated: ours(z.literal(true).optional(), 'Part of `currentRunCost` is an estimate.'),
    }),
  }),
  // --- 6.2 Rollback ----------------------------------------------------------------------------------
  'rollback.started': z.object({
    fromRun: z.string(),
    fromCodon: z.string(),
    toCodon: z.string(),
    toCheckpoint: z.string(),
    checkpointType: InitialAllowed,
    codonsToProcess: z.array(z.string()),
  }),
  'rollback.progress': z.object({ currentStep: z.number(), totalSteps: z.number(), message: z.string() }),
  'rollback.codonCheckpoint': z.object({
    codonId: z.string(),
    codonName: z.string(),
    checkpoint: z.string(),
    checkpointType: z.string(),
    message: z.string(),
  }),
  'rollback.rigCleanup': z.object({
    codonId: z.string(),
    codonName: z.string(),
    directories: z.array(z.string()),
    status: RollbackStatus,
    successfulCleanups: z.array(z.string()).optional(),
    failedCleanups: z.array(z.object({ directory: z.string(), error: z.string() })).optional(),
  }),
  'rollback.completed': z.object({
    fromRun: z.string(),
    toRun: z.string(),
    checkpoint: z.string(),
    codonId: z.string(),
    codonName: z.string(),
    checkpointType: InitialAllowed,
    autoRestart: z.boolean(),
  }),
  'rollback.archiveRestore': z.object({
    codonId: z.string(),
    restoredFiles: z.array(z.string()),
    sourceDir: z.string(),
  }),
  // --- 6.3 Archive -----------------------------------------------------------------------------------
  'archive.completed': z.object({
    codonId: z.string(),
    archivedFiles: z.array(z.string()),
    archiveDir: z.string(),
  }),
  'archive.partial': z.object({
    codonId: z.string(),
    archivedFiles: z.array(z.string()),
    failedFiles: z.array(z.string()),
    archiveDir: z.string(),
  }),
  // --- Ours: a codon's outputFiles, copied out after it succeeded -----------------------------------
  'outputs.copied': ours(
    z.object({
      codonId: z.string(),
      /** The output directory (absolute). */
      dir: z.string(),
      /** Paths relative to the agent root (and to `dir`), sorted. */
      files: z.array(z.string()),
    }),
    "A codon's outputFiles, copied to the output directory after it succeeded.",
  ),
  // --- Ours: verification gates ----------------------------------------------------------------------
  ...verifyEvents,
};

// --- 6.4 Agentic Backbone -----------------------------------------------------------------------------
const backbone = {
  'assistant.action': z.object({
    codonId: z.string(),
    action: z.enum(['thinking', 'message', 'tool_use']),
    content: z.string(),
    toolName: z.string().optional(),
    toolInput: z.record(z.string(), z.unknown()).optional(),
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
  }),
  'file.updated': z.object({
    path: z.string(),
    filename: z.string(),
    content: z.string(),
    action: z.enum(['created', 'modified', 'deleted']),
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
      action: z.enum(['message', 'halt', 'rollback', 'redo']),
      /** Announced only: the sentinel's dryRun is on, nothing is done. */
      dryRun: z.boolean(),
      /** What matched, e.g. `repeating equals true (3 times)`. */
      reason: z.string(),
      /** The rendered text of a message, or what a redo adds to the prompt. */
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

export const eventDataSchemas = { ...serverState, ...backbone, ...sentinel, ...connection };
export type EventType = keyof typeof eventDataSchemas;
export type EventData<T extends EventType> = z.infer<(typeof eventDataSchemas)[T]>;
/** The payload a publisher passes (fields with defaults may be left out). */
export type EventInput<T extends EventType> = z.input<(typeof eventDataSchemas)[T]>;

export type EventCategory = 'server-state' | 'agentic-backbone' | 'sentinel' | 'connection';
function categorize<K extends string>(keys: Record<K, unknown>, category: EventCategory) {
  return Object.fromEntries(Object.keys(keys).map((k) => [k, category])) as Record<K, EventCategory>;
}
export const eventCategory: Record<EventType, EventCategory> = {
  ...categorize(serverState, 'server-state'),
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
