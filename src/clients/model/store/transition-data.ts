import type {
  CheckpointInfo,
  EventData,
  FailureReason,
  StateTransitionType,
} from '../../../core/protocol/index.ts';
import {
  CHECKPOINT_TYPES,
  CODON_STATUSES,
  FAILURE_REASON_TYPES,
} from '../../../core/protocol/value-names.ts';
import {
  arrayOf,
  type Check,
  isBoolean,
  isNumber,
  isString,
  object,
  oneOf,
  optional,
} from '../../../core/validation/shape.ts';

const codonStatus = oneOf(CODON_STATUSES);
const failureReason: Check<FailureReason> = object({
  type: oneOf([...FAILURE_REASON_TYPES.spec, ...FAILURE_REASON_TYPES.ours]),
  retriable: isBoolean,
  message: optional(isString),
  sentinelRefs: optional(arrayOf(isString)),
  resetsAt: optional(isString),
});
const checkpointInfo: Check<CheckpointInfo> = object({
  codonId: isString,
  codonName: isString,
  checkpointType: oneOf(CHECKPOINT_TYPES),
  sha: isString,
  status: codonStatus,
  timestamp: isString,
});

/**
 * The fields of `state.transition` data the UI reads. The protocol types that data only as a map
 * (spec 6.1: "for debugging"), so these checks are the UI's own, deliberately partial, and a
 * transition that does not fit is ignored rather than trusted. Checked by hand, not with zod: the
 * web dashboard bundles this.
 */
const checks = {
  RunStarted: object({
    runId: isString,
    startedAt: isString,
    reason: optional(isString),
    branch: optional(isString),
  }),
  RunCompleted: object({ runId: isString, endedAt: isString }),
  RunFailed: object({ runId: isString, endedAt: isString, reason: optional(isString) }),
  RunCrashed: object({ runId: isString, detectedAt: isString, codonId: optional(isString) }),
  CodonStarted: object({
    codonId: isString,
    codonName: isString,
    codonIndex: isNumber,
    startTime: isString,
  }),
  CodonTransitioned: object({
    codonId: isString,
    to: codonStatus,
    duration: optional(isNumber),
    failureReason: optional(failureReason),
  }),
  CostsIncremented: object({ codonId: isString, amount: isNumber }),
  CostsUpdated: object({ codonId: isString, cost: isNumber }),
  CodonFinalCostSet: object({ codonId: isString, cost: isNumber }),
  CheckpointCreated: object({ runId: isString, checkpoint: checkpointInfo }),
} satisfies Partial<Record<StateTransitionType, Check<unknown>>>;

type Known = keyof typeof checks;
type CheckedBy<C> = C extends Check<infer T> ? T : never;
export type ReadTransition = { [T in Known]: { type: T; data: CheckedBy<(typeof checks)[T]> } }[Known];

export function readTransition(data: EventData<'state.transition'>): ReadTransition | undefined {
  const type = data.transitionType;
  if (!Object.hasOwn(checks, type)) return undefined;
  const fields = data.transition.data;
  return checks[type as Known](fields) ? ({ type, data: fields } as ReadTransition) : undefined;
}
