/**
 * Codex's words for a usage limit (docs/agents.md#usage-limits), from the message of its failed turn.
 * Pure: `now` and the local zone are given.
 */
import type { UsageLimit } from '../../llm/usage-limit/usage-limit.ts';
import { monthOf, parseClock, wallTimeToEpoch } from '../../llm/usage-limit/wall-time.ts';

/**
 * The ChatGPT backend's usage_limit_reached: "You’ve hit your usage limit. Upgrade to Pro (...), visit
 * ... or try again at 3:53 PM." (its plan's wording varies; the time local, or "Jan 5th, 2026 3:04 PM"
 * on another day); older versions "try again in 4 days 20 hours 9 minutes". An API key's
 * insufficient_quota: "Quota exceeded. Check your plan and billing details." (no reset).
 */
const HIT = /You[’']ve hit your usage limit|^Quota exceeded\. Check your plan and billing details/im;

/** "try again at 3:53 PM." / "Try again at Jan 5th, 2026 3:04 PM." */
const AT =
  /try again at (?:(?<month>[A-Z][a-z]{2})\s+(?<day>\d{1,2})(?:st|nd|rd|th)?,\s*(?<year>\d{4})\s+)?(?<clock>\d{1,2}:\d{2}\s*[AP]M)/i;

/** "try again in 4 days 20 hours 9 minutes" (older Codex). */
const IN = /try again in ((?:\d+\s*(?:days?|hours?|minutes?|seconds?)\s*)+)/i;

const UNIT_MS: Record<string, number> = { d: 86_400_000, h: 3_600_000, m: 60_000, s: 1000 };

/** Codex prints the reset's minute, its seconds cut: the end of that minute, never before the reset. */
const END_OF_MINUTE_MS = 59_000;

/** The usage limit a Codex error message reports, or null for any other message. */
export function codexUsageLimitOf(message: string, now: number, zone: string): UsageLimit | null {
  if (!HIT.test(message)) return null;
  const at = AT.exec(message)?.groups;
  const clock = at?.clock ? parseClock(at.clock) : null;
  if (at && clock) {
    const month = at.month ? monthOf(at.month) : null;
    const date =
      month !== null && at.day && at.year ? { month, day: Number(at.day), year: Number(at.year) } : undefined;
    const epoch = wallTimeToEpoch({ ...clock, ...(date ? { date } : {}) }, zone, now);
    return { resetsAtMs: epoch === null ? null : epoch + END_OF_MINUTE_MS };
  }
  const within = IN.exec(message)?.[1];
  if (within) {
    let ms = 0;
    for (const [, n, unit] of within.matchAll(/(\d+)\s*(d|h|m|s)/gi)) {
      ms += Number(n) * (UNIT_MS[unit?.toLowerCase() ?? ''] ?? 0);
    }
    return { resetsAtMs: now + ms };
  }
  return { resetsAtMs: null };
}
