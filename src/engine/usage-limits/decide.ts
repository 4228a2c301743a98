import { clockAt, resetWhen, waitWords } from '../../core/time/reset-text.ts';
import type { FallbackAgent, UsageLimitPolicy } from '../../plan/usage-limit-schema.ts';

/**
 * What follows a codon that ended on a usage limit (docs/unattended.md#usage-limits). Pure: the
 * orchestrator asks it and does the handing over or the waiting.
 *
 * - A fallbackAgent takes the codon over at once, unless the attempt that met the limit already ran
 *   with it: then the codon waits like any other.
 * - `wait`: until the reset plus the margin; with no reset given, `unknownResetWaitMs` at a time,
 *   counted from the codon's first limit. A wait past `maxWaitMs` fails the codon, saying why.
 * - `fail`: the codon stays failed (its onFailure `then` decides what follows).
 */
export type UsageLimitDecision =
  | { kind: 'fallback'; fallback: FallbackAgent; why: string }
  | { kind: 'wait'; until: number; waitMs: number; why: string }
  | { kind: 'fail'; why: string };

export type UsageLimitMet = {
  policy: UsageLimitPolicy;
  /** The agent that met the limit. */
  agent: string;
  /** The attempt ran with the codon's fallbackAgent already. */
  onFallback: boolean;
  /** When the limit resets (epoch ms), when the agent said. */
  resetsAt?: number;
  now: number;
  /** When the codon first met a limit in this chain of attempts (epoch ms). */
  since: number;
};

export function decideUsageLimit(met: UsageLimitMet): UsageLimitDecision {
  const { policy, agent, now } = met;
  const fallback = policy.fallbackAgent;
  if (fallback && !met.onFallback) {
    const model = fallback.model ? ` (${fallback.model})` : '';
    return {
      kind: 'fallback',
      fallback,
      why: `${agent} reached its usage limit${resetPart(met.resetsAt, now)}: the codon goes to its fallbackAgent ${fallback.agent}${model}`,
    };
  }
  if (policy.then === 'fail') {
    return {
      kind: 'fail',
      why: `${agent} reached its usage limit${resetPart(met.resetsAt, now)}; onUsageLimit is fail`,
    };
  }
  if (met.resetsAt !== undefined) {
    const until = Math.max(now, met.resetsAt) + policy.marginMs;
    const waitMs = until - now;
    if (waitMs > policy.maxWaitMs)
      return {
        kind: 'fail',
        why: `${agent}'s usage limit resets at ${resetWhen(met.resetsAt, now)}, past onUsageLimit.maxWaitMs (${waitWords(policy.maxWaitMs)}): not waiting`,
      };
    return {
      kind: 'wait',
      until,
      waitMs,
      why: `${agent} reached its usage limit (it resets at ${clockAt(met.resetsAt, now)})`,
    };
  }
  const until = now + policy.unknownResetWaitMs;
  if (until - met.since > policy.maxWaitMs)
    return {
      kind: 'fail',
      why: `${agent} reached its usage limit and said no reset time; waiting ${waitWords(policy.unknownResetWaitMs)} more would pass onUsageLimit.maxWaitMs (${waitWords(policy.maxWaitMs)}) since ${clockAt(met.since, now)}`,
    };
  return {
    kind: 'wait',
    until,
    waitMs: until - now,
    why: `${agent} reached its usage limit and said no reset time: trying again in ${waitWords(policy.unknownResetWaitMs)}`,
  };
}

function resetPart(resetsAt: number | undefined, now: number): string {
  return resetsAt === undefined ? '' : ` (it resets at ${resetWhen(resetsAt, now)})`;
}

/**
 * The usageLimit.waiting message: "waiting for the usage limit of claude-code to reset at 15:00;
 * codon two starts again at 15:01". Clock times only: it is journaled and read later, and the
 * clients count down to `until` themselves.
 */
export function waitingMessage(
  agent: string,
  codonId: string,
  resetsAt: number | undefined,
  until: number,
  now: number,
): string {
  const again = `codon ${codonId} starts again at ${clockAt(until, now)}`;
  return resetsAt === undefined
    ? `waiting for the usage limit of ${agent} (it said no reset time): ${again}`
    : `waiting for the usage limit of ${agent} to reset at ${clockAt(resetsAt, now)}; ${again}`;
}
