import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { readTransition } from '../../../../src/clients/model/store/transition-data.ts';
import {
  CheckpointInfo,
  CodonStatus,
  type EventData,
  FailureReason,
} from '../../../../src/core/protocol/index.ts';

/**
 * readTransition checks by hand (the web dashboard bundles no zod); these are the zod schemas it
 * had, so a transition is read exactly when it was before, for the TUI and the console too.
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
};
type Known = keyof typeof schemas;
const KNOWN = Object.keys(schemas) as Known[];

const transition = (transitionType: string, data: unknown) =>
  ({
    transitionType,
    transition: { data },
    resultingState: {},
  }) as unknown as EventData<'state.transition'>;

// A field's value: one of its kind, or anything else (the enums' values and near misses among them).
const anything = fc.oneof(
  fc.string({ maxLength: 3 }),
  fc.constantFrom('running', 'skipped', 'rig-setup', 'verify', 'usage-limit', 'Running', ''),
  fc.double(),
  fc.integer(),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.string({ maxLength: 2 }), { maxLength: 2 }),
);
const str = fc.string({ maxLength: 3 });
const num = fc.oneof(fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }));
/** A value that fits: each field of its kind, an optional one sometimes left out. */
const fitting = (fields: Record<string, fc.Arbitrary<unknown>>, optional: string[] = []) =>
  fc.record(fields, { requiredKeys: Object.keys(fields).filter((k) => !optional.includes(k)) });
const checkpoint = fitting({
  codonId: str,
  codonName: str,
  checkpointType: fc.constantFrom('rig-setup', 'completed', 'error', 'skipped'),
  sha: str,
  status: fc.constantFrom('pending', 'running', 'completed', 'stopped'),
  timestamp: str,
});
const failure = fitting(
  {
    type: fc.constantFrom('timeout', 'unknown', 'verify', 'usage-limit'),
    retriable: fc.boolean(),
    message: str,
    sentinelRefs: fc.array(str, { maxLength: 2 }),
    resetsAt: str,
  },
  ['message', 'sentinelRefs', 'resetsAt'],
);
const FITTING: Record<Known, fc.Arbitrary<Record<string, unknown>>> = {
  RunStarted: fitting({ runId: str, startedAt: str, reason: str, branch: str }, ['reason', 'branch']),
  RunCompleted: fitting({ runId: str, endedAt: str }),
  RunFailed: fitting({ runId: str, endedAt: str, reason: str }, ['reason']),
  RunCrashed: fitting({ runId: str, detectedAt: str, codonId: str }, ['codonId']),
  CodonStarted: fitting({ codonId: str, codonName: str, codonIndex: num, startTime: str }),
  CodonTransitioned: fitting(
    {
      codonId: str,
      to: fc.constantFrom('pending', 'preparing', 'failed', 'skipped'),
      duration: num,
      failureReason: failure,
    },
    ['duration', 'failureReason'],
  ),
  CostsIncremented: fitting({ codonId: str, amount: num }),
  CostsUpdated: fitting({ codonId: str, cost: num }),
  CodonFinalCostSet: fitting({ codonId: str, cost: num }),
  CheckpointCreated: fitting({ runId: str, checkpoint }),
};

/** `value` with at most one field (or one field of a nested object) removed or replaced by anything, and a field added. */
function spoiled(value: Record<string, unknown>): fc.Arbitrary<unknown> {
  const paths = Object.entries(value).flatMap(([k, v]) =>
    v !== null && typeof v === 'object' && !Array.isArray(v)
      ? [[k], ...Object.keys(v).map((n) => [k, n])]
      : [[k]],
  );
  return fc
    .tuple(fc.constantFrom(...paths, []), fc.option(anything), fc.boolean())
    .map(([path, replace, extra]) => {
      const copy = structuredClone(value);
      const parent = path.length === 2 ? (copy[path[0]!] as Record<string, unknown>) : copy;
      const key = path.at(-1);
      if (key !== undefined) {
        if (replace === null) delete parent[key];
        else parent[key] = replace;
      }
      if (extra) copy.extra = 'more';
      return copy;
    });
}

describe('readTransition: the transitions the UI reads, checked by hand', () => {
  it('reads a transition exactly when the zod schemas it replaced take it', () => {
    fc.assert(
      fc.property(
        fc
          .constantFrom(...KNOWN)
          .chain((type) =>
            fc.tuple(fc.constant(type), fc.oneof(anything, FITTING[type].chain(spoiled), FITTING[type])),
          ),
        ([type, value]) => {
          const read = readTransition(transition(type, value));
          expect(read !== undefined).toBe(schemas[type].safeParse(value).success);
        },
      ),
      { numRuns: 5_000 },
    );
  });

  it('reads a well-formed one with its fields, and ignores unknown transition types', () => {
    const checkpointInfo = {
      codonId: 'one',
      codonName: 'One',
      checkpointType: 'completed',
      sha: 'abc',
      status: 'completed',
      timestamp: '2026-01-01T00:00:00.000Z',
    };
    expect(
      readTransition(transition('CheckpointCreated', { runId: 'r', checkpoint: checkpointInfo })),
    ).toEqual({
      type: 'CheckpointCreated',
      data: { runId: 'r', checkpoint: checkpointInfo },
    });
    expect(
      readTransition(
        transition('CodonTransitioned', {
          codonId: 'one',
          to: 'failed',
          failureReason: { type: 'usage-limit', retriable: true },
        }),
      )?.type,
    ).toBe('CodonTransitioned');
    expect(
      readTransition(transition('CodonTransitioned', { codonId: 'one', to: 'exploded' })),
    ).toBeUndefined();
    expect(readTransition(transition('constructor', {}))).toBeUndefined();
    expect(readTransition(transition('RunPaused', { runId: 'r' }))).toBeUndefined();
  });
});
