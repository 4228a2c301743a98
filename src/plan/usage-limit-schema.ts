import { z } from 'zod';
import { Agent, Model, TimeoutMs } from './primitives.ts';

/**
 * What a codon does when its agent reaches a usage limit (docs/unattended.md#usage-limits): a
 * subscription's 5-hour or weekly window, a quota used up until a reset hours away. Not a rate
 * limit: seconds of backoff do not help, so the run waits for the reset, or hands the codon to
 * another agent.
 */

export const DEFAULT_USAGE_LIMIT_MAX_WAIT_MS = 6 * 3_600_000;
export const DEFAULT_USAGE_LIMIT_MARGIN_MS = 60_000;
export const DEFAULT_UNKNOWN_RESET_WAIT_MS = 15 * 60_000;

export const UsageLimitThen = z
  .enum(['wait', 'fail'])
  .describe(
    'wait (default): wait for the reset, then start the codon again from its start checkpoint. fail: the codon fails (onFailure then decides what follows).',
  );

export const FallbackAgent = z
  .strictObject({
    agent: Agent,
    model: Model.optional().describe("The fallback agent's model. Default: the agent's own default."),
  })
  .describe(
    'Another agent that takes the codon over at once, from its start checkpoint; until the reset, later codons of the limited agent run with it too, then go back to their own.',
  );
export type FallbackAgent = z.infer<typeof FallbackAgent>;

const UsageLimitObject = z.strictObject({
  // biome-ignore lint/suspicious/noThenProperty: the plan field is named `then` (a string, never awaited).
  then: UsageLimitThen.optional(),
  fallbackAgent: FallbackAgent.optional(),
  maxWaitMs: TimeoutMs.optional().describe(
    `Longest wait for a reset; a reset further away fails the codon, saying when it resets. Default ${DEFAULT_USAGE_LIMIT_MAX_WAIT_MS} (6 hours).`,
  ),
  marginMs: z
    .number()
    .int()
    .min(0)
    .max(3_600_000)
    .optional()
    .describe(
      `Waited past the reset the agent gave, for clocks that differ. Default ${DEFAULT_USAGE_LIMIT_MARGIN_MS} (1 minute).`,
    ),
  unknownResetWaitMs: z
    .number()
    .int()
    .min(1_000)
    .max(86_400_000)
    .optional()
    .describe(
      `When the agent says no reset time: wait this long, try again, and so on up to maxWaitMs. Default ${DEFAULT_UNKNOWN_RESET_WAIT_MS} (15 minutes).`,
    ),
  countWait: z
    .boolean()
    .optional()
    .describe(
      "Count the wait against the plan's and loops' maxDurationMs. Default false: their clocks stop.",
    ),
});

export const OnUsageLimit = z
  .union([UsageLimitThen, UsageLimitObject])
  .describe(
    'What happens when the agent reaches a usage limit (a subscription window, a quota): wait (default), fail, or an object with a fallbackAgent and the wait bounds.',
  );
export type OnUsageLimit = z.infer<typeof OnUsageLimit>;

/** onUsageLimit as a codon runs with it: every default applied. */
export const UsageLimitPolicy = z.strictObject({
  // biome-ignore lint/suspicious/noThenProperty: the plan field is named `then` (a string, never awaited).
  then: UsageLimitThen,
  fallbackAgent: FallbackAgent.optional(),
  maxWaitMs: z.number().int(),
  marginMs: z.number().int(),
  unknownResetWaitMs: z.number().int(),
  countWait: z.boolean(),
});
export type UsageLimitPolicy = z.infer<typeof UsageLimitPolicy>;

/** The codon's onUsageLimit, else the plan's, else wait; defaults filled in. Pure. */
export function usageLimitPolicy(
  codon: OnUsageLimit | undefined,
  plan: OnUsageLimit | undefined,
): UsageLimitPolicy {
  const given = codon ?? plan ?? 'wait';
  // biome-ignore lint/suspicious/noThenProperty: the plan field is named `then` (a string, never awaited).
  const o = typeof given === 'string' ? { then: given } : given;
  return {
    // biome-ignore lint/suspicious/noThenProperty: as above.
    then: o.then ?? 'wait',
    ...(o.fallbackAgent === undefined ? {} : { fallbackAgent: o.fallbackAgent }),
    maxWaitMs: o.maxWaitMs ?? DEFAULT_USAGE_LIMIT_MAX_WAIT_MS,
    marginMs: o.marginMs ?? DEFAULT_USAGE_LIMIT_MARGIN_MS,
    unknownResetWaitMs: o.unknownResetWaitMs ?? DEFAULT_UNKNOWN_RESET_WAIT_MS,
    countWait: o.countWait ?? false,
  };
}
