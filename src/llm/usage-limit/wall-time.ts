/**
 * A wall-clock time as an agent prints it ("3:53pm" in Europe/Paris, "Jan 5th, 2026 3:04 PM" local)
 * as epoch milliseconds. Pure: `now` and the zone are given.
 */

export type WallTime = {
  hour: number;
  minute: number;
  /** The date, when the text gave one; absent: the next occurrence of the time after `now`. */
  date?: { month: number; day: number; year?: number };
};

/** The zone a process formats local times in (Intl's default: TZ, else the system's). */
export const localZone = (): string => Intl.DateTimeFormat().resolvedOptions().timeZone;

/** Whether `zone` is an IANA zone this runtime knows. */
export function knownZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

type Parts = { year: number; month: number; day: number; hour: number; minute: number; second: number };

function partsIn(zone: string, ms: number): Parts {
  const format = new Intl.DateTimeFormat('en-US', {
    timeZone: zone,
    hourCycle: 'h23',
    year: 'numeric',
    month: 'numeric',
    day: 'numeric',
    hour: 'numeric',
    minute: 'numeric',
    second: 'numeric',
  });
  const out: Record<string, number> = {};
  for (const part of format.formatToParts(new Date(ms))) {
    if (part.type !== 'literal') out[part.type] = Number(part.value);
  }
  return {
    year: out.year ?? 1970,
    month: out.month ?? 1,
    day: out.day ?? 1,
    hour: out.hour ?? 0,
    minute: out.minute ?? 0,
    second: out.second ?? 0,
  };
}

/** How far `zone`'s wall clock is ahead of UTC at `ms`. */
function offsetAt(zone: string, ms: number): number {
  const p = partsIn(zone, ms);
  return Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second) - Math.floor(ms / 1000) * 1000;
}

/** The instant `zone`'s wall clock shows year-month-day hour:minute (the later one across a DST change). */
function instantOf(zone: string, y: number, m: number, d: number, hour: number, minute: number): number {
  const wall = Date.UTC(y, m - 1, d, hour, minute);
  const first = wall - offsetAt(zone, wall);
  return wall - offsetAt(zone, first);
}

/** Slack for a reset printed in whole minutes that has just passed: still this one, not tomorrow's. */
const JUST_PASSED_MS = 60_000;

/**
 * The instant of `time` in `zone`: on its date when given (the year absent: this year's, or next
 * year's when that date has passed), else its next occurrence from `now` (today's, or tomorrow's).
 * Null for an impossible time.
 */
export function wallTimeToEpoch(time: WallTime, zone: string, now: number): number | null {
  if (time.hour > 23 || time.minute > 59) return null;
  const today = partsIn(zone, now);
  if (time.date) {
    const { month, day } = time.date;
    if (month < 1 || month > 12 || day < 1 || day > 31) return null;
    const at = (year: number) => instantOf(zone, year, month, day, time.hour, time.minute);
    if (time.date.year !== undefined) return at(time.date.year);
    const thisYear = at(today.year);
    return thisYear >= now - JUST_PASSED_MS ? thisYear : at(today.year + 1);
  }
  const todays = instantOf(zone, today.year, today.month, today.day, time.hour, time.minute);
  if (todays >= now - JUST_PASSED_MS) return todays;
  const tomorrow = partsIn(zone, now + 24 * 3_600_000);
  return instantOf(zone, tomorrow.year, tomorrow.month, tomorrow.day, time.hour, time.minute);
}

/** "3pm", "3:53pm", "3:04 PM", "15:00": hour and minute, or null. */
export function parseClock(text: string): { hour: number; minute: number } | null {
  const m = /^(\d{1,2})(?::(\d{2}))?\s*([ap]\.?m\.?)?$/i.exec(text.trim());
  if (!m?.[1]) return null;
  let hour = Number(m[1]);
  const minute = m[2] === undefined ? 0 : Number(m[2]);
  const half = m[3]?.[0]?.toLowerCase();
  if (half) {
    if (hour < 1 || hour > 12) return null;
    hour = (hour % 12) + (half === 'p' ? 12 : 0);
  } else if (m[2] === undefined) return null; // a bare number is no time
  return hour > 23 || minute > 59 ? null : { hour, minute };
}

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];

/** "Jan" or "January": 1..12, or null. */
export function monthOf(name: string): number | null {
  const index = MONTHS.indexOf(name.slice(0, 3).toLowerCase());
  return index === -1 ? null : index + 1;
}
