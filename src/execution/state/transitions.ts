import { z } from 'zod';
import {
  CheckpointInfo,
  CodonStatus,
  FailureReason,
  ProcessExit,
  type StateTransitionType,
} from '../../core/protocol/index.ts';

/**
 * Every change to run state is one of these transitions (spec 2.4 StateTransitionType), appended to
 * SQLite and folded by the reducer: state is always reduce(transitions), so a restart replays it.
 */
const RunRef = { runId: z.string().min(1) };
const CodonRef = { ...RunRef, codonId: z.string().min(1) };

export const transitionDataSchemas = {
  RunStarted: z.object({
    ...RunRef,
    startedAt: z.string(),
    /** Why this run began: a server start, a rollback, or the recovery of a crashed run. */
    reason: z.enum(['start', 'rollback', 'recovery']),
    /** Written by earlier versions (the plan index to go on with); what runs next is now derived (engine/what-next.ts). */
    nextCodonIndex: z.number().int().nonnegative().optional(),
    /** The run begins at the start of this codon: a rollback to its start, or the recovery of a run it broke in. */
    startOf: z.string().optional(),
    fromRunId: z.string().optional(),
    fromCheckpoint: z.string().optional(),
    branch: z.string().optional(),
  }),
  RunCompleted: z.object({ ...RunRef, endedAt: z.string() }),
  RunFailed: z.object({ ...RunRef, endedAt: z.string(), reason: z.string() }),
  /** `codonId`: the codon that was preparing or running when the server stopped. */
  RunCrashed: z.object({ ...RunRef, detectedAt: z.string(), codonId: z.string().optional() }),
  CodonStarted: z.object({
    ...CodonRef,
    codonName: z.string(),
    codonIndex: z.number().int().nonnegative(),
    sessionId: z.string(),
    previousSessionId: z.string().optional(),
    startTime: z.string(),
    /** The codon's agent reports tokens but no cost: Ribosome prices them, so its spend is an estimate. */
    costEstimated: z.literal(true).optional(),
  }),
  CodonTransitioned: z.object({
    ...CodonRef,
    from: CodonStatus,
    to: CodonStatus,
    at: z.string(),
    exitStatus: ProcessExit.optional(),
    failureReason: FailureReason.optional(),
    duration: z.number().optional(),
    /** The agent's own session id once it reports it (used by continue-previous). */
    agentSessionId: z.string().optional(),
  }),
  CostsUpdated: z.object({ ...CodonRef, cost: z.number().nonnegative() }),
  CostsIncremented: z.object({
    ...CodonRef,
    amount: z.number().nonnegative(),
    source: z.enum(['agent', 'sentinel']),
  }),
  CodonFinalCostSet: z.object({ ...CodonRef, cost: z.number().nonnegative() }),
  AssistantMessageCountUpdated: z.object({ ...CodonRef, count: z.number().int().nonnegative() }),
  CheckpointCreated: z.object({ ...RunRef, checkpoint: CheckpointInfo }),
  InitialCheckpointSet: z.object({ ...RunRef, sha: z.string() }),
  SentinelStatesUpdated: z.object({
    ...CodonRef,
    sentinels: z.array(
      z.object({
        sentinelId: z.string(),
        status: z.enum(['loaded', 'unloaded']),
        cost: z.number(),
        llmCallCount: z.number().int(),
      }),
    ),
  }),
} satisfies Record<StateTransitionType, z.ZodType>;

export type TransitionData<T extends StateTransitionType> = z.infer<(typeof transitionDataSchemas)[T]>;
export type Transition = {
  [T in StateTransitionType]: { type: T; data: TransitionData<T> };
}[StateTransitionType];
export type TransitionOf<T extends StateTransitionType> = Extract<Transition, { type: T }>;

/** Parses a stored transition; a corrupt row is an error, never skipped. */
export function parseTransition(type: string, data: unknown): Transition {
  if (!Object.hasOwn(transitionDataSchemas, type)) throw new Error(`unknown transition type ${type}`);
  const schema = transitionDataSchemas[type as StateTransitionType];
  return { type, data: schema.parse(data) } as Transition;
}
