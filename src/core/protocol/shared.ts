import { z } from 'zod';
import { extendedEnum, ours } from './extension.ts';
import { CHECKPOINT_TYPES, CODON_STATUSES, FAILURE_REASON_TYPES } from './value-names.ts';

/** Shared structures of spec section 2.4. */

export const ProcessExit = z.discriminatedUnion('type', [
  z.object({ type: z.literal('success') }),
  z.object({ type: z.literal('error'), code: z.number().int() }),
  z.object({ type: z.literal('killed'), signal: z.string() }),
]);
export type ProcessExit = z.infer<typeof ProcessExit>;

// Ours (docs/protocol.md#protocol-extensions): budget (a budget stopped the codon), verify (a gate
// failed), usage-limit (the agent's plan or quota is used up until a reset: hours, not seconds).
export const FailureReasonType = extendedEnum(FAILURE_REASON_TYPES.spec, FAILURE_REASON_TYPES.ours);
export const FailureReason = z.object({
  type: FailureReasonType,
  retriable: z.boolean(),
  message: z.string().optional(),
  sentinelRefs: z.array(z.string()).optional(),
  resetsAt: ours(
    z.string().optional(),
    'For usage-limit: when the agent or its provider said the limit resets (ISO 8601).',
  ),
});
export type FailureReason = z.infer<typeof FailureReason>;

/**
 * Codon statuses (the spec leaves them to us):
 * pending -> preparing (rig setup) -> running -> completed | failed | skipped | stopped.
 * `stopped` is a codon ended by codon.forceStop (or a sentinel's halt, rollback or redo).
 */
export const CodonStatus = z.enum(CODON_STATUSES);
export type CodonStatus = z.infer<typeof CodonStatus>;

export const CheckpointType = z.enum(CHECKPOINT_TYPES);
export type CheckpointType = z.infer<typeof CheckpointType>;

export const CheckpointInfo = z.object({
  codonId: z.string(),
  codonName: z.string(),
  checkpointType: CheckpointType,
  sha: z.string(),
  status: CodonStatus,
  timestamp: z.string(),
});
export type CheckpointInfo = z.infer<typeof CheckpointInfo>;

export type FileNode = {
  name: string;
  path: string;
  isDirectory: boolean;
  children: FileNode[];
  lastModified?: string | undefined;
};
export const FileNode: z.ZodType<FileNode> = z.lazy(() =>
  z.object({
    name: z.string(),
    path: z.string(),
    isDirectory: z.boolean(),
    children: z.array(FileNode),
    lastModified: z.string().optional(),
  }),
);

/** CodonExecution: fields are ours to choose (spec: "not shown"). */
export const CodonExecution = z.object({
  codonId: z.string(),
  codonName: z.string(),
  status: CodonStatus,
  runId: z.string().optional(),
  sessionId: z.string().optional(),
  startTime: z.string().optional(),
  endTime: z.string().optional(),
  duration: z.number().optional(),
  cost: z.number(),
  costEstimated: ours(
    z.literal(true).optional(),
    "Present when part of `cost` is Ribosome's estimate: the agent (Codex, Gemini CLI) reports tokens but no cost.",
  ),
  assistantMessageCount: z.number().int().optional(),
  exitStatus: ProcessExit.optional(),
  failureReason: FailureReason.optional(),
});
export type CodonExecution = z.infer<typeof CodonExecution>;

export const StateTransitionType = z.enum([
  'RunStarted',
  'RunCompleted',
  'RunFailed',
  'RunCrashed',
  'CodonStarted',
  'CodonTransitioned',
  'CostsUpdated',
  'CostsIncremented',
  'CodonFinalCostSet',
  'AssistantMessageCountUpdated',
  'CheckpointCreated',
  'InitialCheckpointSet',
  'SentinelStatesUpdated',
]);
export type StateTransitionType = z.infer<typeof StateTransitionType>;

export const ClientMode = z.enum(['readonly', 'readandwrite']);
export type ClientMode = z.infer<typeof ClientMode>;
