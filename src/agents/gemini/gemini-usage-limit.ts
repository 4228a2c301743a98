/**
 * Gemini CLI's words for a usage limit (docs/agents.md#usage-limits), from the message of its failed
 * result. Gemini CLI makes a TerminalQuotaError of a quota it will not retry: a per-day one ("You have
 * exhausted your daily quota on this model.", Google's retry delay dropped), or one whose retry delay
 * passes 300 s (Google's message, then "Suggested retry after 3600s."). Pure: `now` is given.
 */
import {
  parseDuration,
  USAGE_LIMIT_MIN_RESET_MS,
  type UsageLimit,
} from '../../llm/usage-limit/usage-limit.ts';

const DAILY = /You have exhausted your daily quota\b/i;
/** Its retryDelay after Google's message, or Google's own "Please retry in 43.5s." */
const RETRY_IN = /(?:Suggested retry after|Please retry in)\s+(\d+(?:\.\d+)?(?:ms|s))\b/i;
const QUOTA = /\bquota\b|RESOURCE_EXHAUSTED/i;

/** The usage limit a Gemini CLI error message reports, or null for any other message. */
export function geminiUsageLimitOf(message: string, now: number): UsageLimit | null {
  const said = RETRY_IN.exec(message)?.[1];
  const wait = said ? parseDuration(said) : null;
  if (DAILY.test(message)) return { resetsAtMs: wait ? now + wait : null };
  // A quota whose retry is further than a backoff can wait (Gemini CLI itself gives up past 300 s).
  if (wait !== null && wait >= USAGE_LIMIT_MIN_RESET_MS && QUOTA.test(message))
    return { resetsAtMs: now + wait };
  return null;
}
