import { z } from 'zod';
import {
  CheckpointInfo,
  CodonStatus,
  type EventData,
  FailureReason,
  type StateTransitionType,
} from '../../../core/protocol/index.ts';

/**
 * The fields of `state.transition` data the UI reads. The protocol types that data only as a map
 * (spec 6.1: "for debugging"), so these schemas are the UI's own, deliberately partial, and a
 * transition that does not fit is ignored rather than trusted.
 */
const schemas = {
  RunStarted: z.object({
    runId: z.string(),
    startedAt: z.string(),
    reason: z.string().optional(),
    branch: z.string().optional(),
  }),
  RunCompleted: z.object({ runId: z.string(), endedAt: z.string() }),
  RunFailed: z.object({ runId: z.string(), endedAt: z.string(), reason: z.string().optional() }),
  RunCrashed: z.object({ runId: z.string(), detectedAt: z.string(), codonId: z.string().optional() }),
  CodonStarted: z.object({
    codonId: z.string(),
    codonName: z.string(),
    codonIndex: z.number(),
    startTime: z.string(),
  }),
  CodonTransitioned: z.object({
    codonId: z.string(),
    to: CodonStatus,
    duration: z.number().optional(),
    failureReason: FailureReason.optional(),
  }),
  CostsIncremented: z.object({ codonId: z.string(), amount: z.number() }),
  CostsUpdated: z.object({ codonId: z.string(), cost: z.number() }),
  CodonFinalCostSet: z.object({ codonId: z.string(), cost: z.number() }),
  CheckpointCreated: z.object({ runId: z.string(), checkpoint: CheckpointInfo }),
} satisfies Partial<Record<StateTransitionType, z.ZodType>>;

type Known = keyof typeof schemas;
export type ReadTransition = { [T in Known]: { type: T; data: z.infer<(typeof schemas)[T]> } }[Known];

export function readTransition(data: EventData<'state.transition'>): ReadTransition | undefined {
  const type = data.transitionType;
  if (!Object.hasOwn(schemas, type)) return undefined;
  const parsed = schemas[type as Known].safeParse(data.transition.data);
  return parsed.success ? ({ type, data: parsed.data } as ReadTransition) : undefined;
}
