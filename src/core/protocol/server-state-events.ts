import { z } from 'zod';
import { ApprovalWait, approvalEvents } from './approval.ts';
import { BudgetStatus } from './budget.ts';
import { CheckpointDiffData } from './checkpoint-diff.ts';
import { ErrorCode, ErrorSeverity } from './errors.ts';
import { ours, oursValues } from './extension.ts';
import { reviewEvents } from './review.ts';
import { sandboxEvents } from './sandbox-events.ts';
import {
  CheckpointInfo,
  CodonExecution,
  CodonStatus,
  FailureReason,
  FileNode,
  ProcessExit,
  StateTransitionType,
} from './shared.ts';
import { UsageLimitWait, usageLimitEvents } from './usage-limit-events.ts';
import { verifyEvents } from './verify-events.ts';

/** Event payloads of spec sections 6.1 to 6.3 (server state, rollback, archive) and ours beside them. */

/** A timestamp (ISO 8601). */
export const Iso = z.string();
const RollbackStatus = z.enum(['started', 'completed', 'failed', 'partial']);
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

// --- 6.1 Server State -------------------------------------------------------------------------------
export const serverStateEvents = {
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
      z.enum(['budget', 'approval']).optional(),
      '`budget`: an exhausted budget refuses what would start next; `approval`: a codon with approval: required waits for a person (`approval`). Either way the run cannot go on by itself.',
    ),
    approval: ours(
      ApprovalWait.optional(),
      'With heldBy approval: the codon waiting for approval, since when, and who may approve it.',
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
    sandboxed: ours(
      z.boolean().optional(),
      "True when the codon's agent runs in the sandbox (docs/agents.md#the-sandbox); absent when it runs unconfined.",
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
    usageLimitWait: ours(
      UsageLimitWait.optional(),
      'The usage-limit wait in progress: the codon that starts again, and when (usageLimit.waiting).',
    ),
    approvalWait: ours(
      ApprovalWait.optional(),
      'The approval wait in progress: the codon a person must approve before the run goes on (approval.waiting).',
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
  // --- Ours: the sandbox -----------------------------------------------------------------------------
  ...sandboxEvents,
  // --- Ours: usage limits ----------------------------------------------------------------------------
  ...usageLimitEvents,
  // --- Ours: review comments and approval gates ------------------------------------------------------
  ...reviewEvents,
  ...approvalEvents,
};
