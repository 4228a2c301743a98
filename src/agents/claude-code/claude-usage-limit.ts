/**
 * Claude Code's words for a usage limit (docs/agents.md#usage-limits), read from its result: it prints
 * its own result line, which has no field for it. Pure: `now` and the local zone are given.
 */
import { anthropicApiLimitOf, type UsageLimit } from '../../llm/usage-limit/usage-limit.ts';
import {
  knownZone,
  localZone,
  monthOf,
  parseClock,
  wallTimeToEpoch,
} from '../../llm/usage-limit/wall-time.ts';
import { parseJsonLine } from '../json-line.ts';
import type { Translator } from '../spawn-agent.ts';
import { StreamLine } from '../stream-line.ts';

/** Older versions: "Claude AI usage limit reached|1760000000" (the reset in epoch seconds). */
const PIPE_EPOCH = /usage limit reached\|(\d{9,11})\b/i;

/**
 * A subscription's limit (its claude.ai OAuth login or CLAUDE_CODE_OAUTH_TOKEN): "You've hit your
 * session limit · resets 3pm (Europe/Paris)", "... weekly limit · resets Dec 3, 3:30pm (UTC)", "You've
 * hit your usage limit" (no reset), "You're out of usage credits · resets 5pm (UTC)".
 */
const HIT = /You[’']ve hit your [^·\n]*?limit\b|You[’']re out of (?:usage|extra usage)\b[^·\n]*/i;

/** "resets 3pm (Europe/Paris)", "resets Dec 3, 3:30pm (UTC)", "resets Jan 2, 2027, 9am". */
const RESETS =
  /·\s*resets\s+(?:(?<month>[A-Z][a-z]{2,8})\s+(?<day>\d{1,2}),\s*(?:(?<year>\d{4}),\s*)?)?(?<clock>\d{1,2}(?::\d{2})?\s*[ap]m)(?:\s*\((?<zone>[^()\s]+)\))?/i;

/**
 * When a time printed to the minute resets: the end of that minute, so a wait never ends before the
 * reset (Claude Code prints the reset's minute, its seconds cut).
 */
const END_OF_MINUTE_MS = 59_000;

/** The usage limit Claude Code's result text reports, or null for any other text. */
export function claudeUsageLimitOf(text: string, now: number, zone: string): UsageLimit | null {
  const piped = PIPE_EPOCH.exec(text);
  if (piped?.[1]) return { resetsAtMs: Number(piped[1]) * 1000 };
  const api = anthropicApiLimitOf(text);
  if (api) return api;
  const hit = HIT.exec(text);
  if (!hit) return null;
  return { resetsAtMs: resetOf(text.slice(hit.index), now, zone) };
}

function resetOf(text: string, now: number, localZone: string): number | null {
  const groups = RESETS.exec(text)?.groups;
  const clock = groups?.clock ? parseClock(groups.clock) : null;
  if (!groups || !clock) return null;
  // Claude Code names the zone it printed the time in; without one, its local zone (this machine's).
  const zone = groups.zone && knownZone(groups.zone) ? groups.zone : localZone;
  const month = groups.month ? monthOf(groups.month) : null;
  const date =
    month !== null && groups.day
      ? { month, day: Number(groups.day), ...(groups.year ? { year: Number(groups.year) } : {}) }
      : undefined;
  if (groups.month && !date) return null;
  const at = wallTimeToEpoch({ ...clock, ...(date ? { date } : {}) }, zone, now);
  return at === null ? null : at + END_OF_MINUTE_MS;
}

/**
 * Claude Code's stream-json as it is, its failed result given our `usage_limit` field when its words
 * say it reached one. `now` and `zone`: the clock and zone its times are read with.
 */
export function claudeTranslator(now: () => number = Date.now, zone: string = localZone()): Translator {
  return {
    line(text) {
      const parsed = parseJsonLine(text, StreamLine);
      if (!parsed.ok) return parsed;
      const line = parsed.value;
      if (line.type !== 'result' || !line.is_error || line.usage_limit) return { ok: true, lines: [line] };
      const said = [line.result ?? '', ...(line.errors ?? [])].join('\n');
      const limit = claudeUsageLimitOf(said, now(), zone);
      return {
        ok: true,
        lines: [limit ? { ...line, usage_limit: { resets_at_ms: limit.resetsAtMs } } : line],
      };
    },
  };
}
