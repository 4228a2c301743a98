import type { FailureReason } from '../../core/protocol/index.ts';
import type { UsageLimitWait } from '../../core/protocol/usage-limit-events.ts';
import { clockAt as localClock, timeLeft } from '../../core/time/reset-text.ts';

/**
 * How every client words a usage-limit wait (docs/unattended.md#usage-limits): the reset time as a
 * local clock, and the time left, counted from `now` (given: pure, and tests pick the moment). One
 * wording for the terminal UI, the dashboard, `runs`, `log`, the MCP status and the batch table.
 */

export type UsageWait = UsageLimitWait;

/** What a codon the run waits for says instead of its status (the codon list, the detail, the overview). */
export const USAGE_WAIT_WORD = 'waiting for usage limit';
/** The same in the terminal UI's status column, eleven characters wide. */
export const USAGE_WAIT_SHORT = 'usage limit';
/** A clock: the codon starts again when the limit resets (one column wide, as the other status marks). */
export const USAGE_WAIT_ICON = '◷';

/**
 * A moment as a local clock (core/time/reset-text.ts): `15:00` today, `Tue 09:00` within the week,
 * else with its date; with seconds when they matter. The ISO text itself when it is no time.
 */
export function clockAt(iso: string, now: number): string {
  const at = Date.parse(iso);
  return Number.isNaN(at) ? iso : localClock(at, now);
}

/** The time left as people count it down (core/time/reset-text.ts): `in 2 h 13 m`; `any moment now` once due. */
export { timeLeft };

/**
 * The wait in one line, counted down from `now`. With a reset time:
 * `waiting for the usage limit of claude-code to reset at 15:00; starts again at 15:01 (in 2 h 14 m)`
 * (the time left is to the start, the reset plus the margin); without one (the agent said none):
 * `waiting for the usage limit of codex (no reset time given): trying again at 15:15 (in 14 m)`.
 * `short`: `usage limit: resets 15:00, starts 15:01 (in 2 h 14 m)`, for a narrow screen.
 */
export function usageWaitText(wait: UsageWait, now: number, options: { short?: boolean } = {}): string {
  // Counted down to when the codon starts again (the reset plus the margin), not to the reset.
  const left = timeLeft(Date.parse(wait.until) - now);
  const again = clockAt(wait.until, now);
  const reset = wait.resetsAt === undefined ? undefined : clockAt(wait.resetsAt, now);
  if (options.short)
    return `usage limit: ${reset === undefined ? 'tries again' : `resets ${reset}, starts`} ${again} (${left})`;
  if (reset === undefined)
    return `waiting for the usage limit of ${wait.agent} (no reset time given): trying again at ${again} (${left})`;
  return reset === again
    ? `waiting for the usage limit of ${wait.agent} to reset at ${reset} (${left})`
    : `waiting for the usage limit of ${wait.agent} to reset at ${reset}; starts again at ${again} (${left})`;
}

/**
 * The wait as a record says it, without a countdown (a log line, an activity line, a table cell
 * read later): `two waits for the usage limit of claude-code to reset at 15:00, then starts again at
 * 15:01`. `now`: when it was said (the event's time), for whether the clock needs its date.
 */
export function usageWaitRecord(wait: UsageWait, now: number): string {
  const until = clockAt(wait.until, now);
  const reset = wait.resetsAt ? `to reset at ${clockAt(wait.resetsAt, now)}` : '(no reset time given)';
  return `${wait.codonId} waits for the usage limit of ${wait.agent} ${reset}, then starts again at ${until}`;
}

/** `two: the usage-limit wait ended (the reset came)`, or `(codon.next took over)`. */
export function usageWaitEndedText(d: {
  codonId: string;
  how: 'reset' | 'command' | 'budget';
  command?: string;
}): string {
  const how =
    d.how === 'reset'
      ? 'its time came'
      : d.how === 'budget'
        ? 'a budget counting it ran out'
        : `${d.command ?? 'a command'} took over`;
  return `${d.codonId}: the usage-limit wait ended (${how})`;
}

/** `waiting for usage limit until 15:01`: the run's state in `ribosome runs` and the batch table. */
export function usageWaitState(wait: UsageWait, now: number): string {
  return `${USAGE_WAIT_WORD} until ${clockAt(wait.until, now)}`;
}

/**
 * A usage-limit failure (onUsageLimit: fail, or a reset past maxWaitMs) in a few words:
 * `usage limit (resets 15:00)`, or `usage limit` when the agent gave no reset time. Undefined for
 * any other failure.
 */
export function usageLimitFailure(reason: FailureReason | undefined, now: number): string | undefined {
  if (reason?.type !== 'usage-limit') return undefined;
  return reason.resetsAt ? `usage limit (resets ${clockAt(reason.resetsAt, now)})` : 'usage limit';
}

/** A failure's kind as the views name it: its type, or `usage limit (resets 15:00)` for a usage limit. */
export function failureKind(reason: FailureReason, now: number): string {
  return usageLimitFailure(reason, now) ?? reason.type;
}
