import { waitWords } from '../../../core/time/reset-text.ts';
import { formatTime } from '../../model/format.ts';

/**
 * Times and durations as the dashboard words them (pure): a clock time `12:03:41` (the day too when
 * it is not today), the full date for a hover, a duration `2 m 14 s` (the words of core/time), how
 * long ago.
 */

/** `340 ms`; `4.2 s` under ten seconds; then `waitWords`: `2 m 14 s`, `12 m`, `1 h 5 m`. */
export function durationWords(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return '—';
  if (ms < 1_000) return `${Math.round(ms)} ms`;
  if (ms < 10_000) return `${(ms / 1_000).toFixed(1)} s`;
  // waitWords counts down (rounds up); a duration counts whole seconds done.
  return waitWords(Math.floor(ms / 1_000) * 1_000);
}

const DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];

/** `12:03:41` today, `Tue 12:03:41` within the week, `2026-11-30 12:03:41` before; the text itself when no date. */
export function clockWords(iso: string, now: number): string {
  const at = new Date(iso);
  if (Number.isNaN(at.getTime())) return iso;
  const time = formatTime(iso);
  const today = new Date(now);
  if (at.toDateString() === today.toDateString()) return time;
  if (Math.abs(now - at.getTime()) < 6 * 86_400_000) return `${DAYS[at.getDay()]} ${time}`;
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${at.getFullYear()}-${pad(at.getMonth() + 1)}-${pad(at.getDate())} ${time}`;
}

/** The full local date and time, for a title: `Mon, 30 Nov 2026, 21:56:18 (UTC+1)`; the text itself when no date. */
export function fullDate(iso: string): string {
  const at = new Date(iso);
  if (Number.isNaN(at.getTime())) return iso;
  return at.toLocaleString(undefined, {
    weekday: 'short',
    year: 'numeric',
    month: 'short',
    day: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
    timeZoneName: 'short',
  });
}

/** `just now`, `45 s ago`, `2 m ago`, `3 h ago`; `in 2 m` for a time ahead. */
export function agoWords(iso: string, now: number): string {
  const at = Date.parse(iso);
  if (Number.isNaN(at)) return '';
  const ms = now - at;
  if (Math.abs(ms) < 5_000) return 'just now';
  if (ms < 0) return `in ${waitWords(-ms)}`;
  // The largest unit alone reads best at a glance.
  return `${waitWords(ms).split(' ').slice(0, 2).join(' ')} ago`;
}
