/**
 * How a usage limit's reset reads for a person (docs/unattended.md#usage-limits): the local clock
 * time, with the day when it is not today, and how long until then. Pure: `now` and the time zone
 * offset come from the caller's clock (local time by default).
 */

/** 8_000_000 -> "2 h 13 m", 90_000 -> "1 m 30 s", 4_000 -> "4 s"; nothing left -> "0 s". */
export function waitWords(ms: number): string {
  const total = Math.max(0, Math.ceil(ms / 1_000));
  const d = Math.floor(total / 86_400);
  const h = Math.floor((total % 86_400) / 3_600);
  const m = Math.floor((total % 3_600) / 60);
  const s = total % 60;
  if (d > 0) return h > 0 ? `${d} d ${h} h` : `${d} d`;
  if (h > 0) return m > 0 ? `${h} h ${m} m` : `${h} h`;
  if (m > 0) return s > 0 && m < 10 ? `${m} m ${s} s` : `${m} m`;
  return `${s} s`;
}

const pad = (n: number) => String(n).padStart(2, '0');
const DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];

/** "15:00", "15:00:30" when the seconds matter (a reset less than 10 minutes away), "Tue 09:00" on another day. */
export function clockAt(at: number, now: number): string {
  const when = new Date(at);
  const today = new Date(now);
  const seconds = at - now < 600_000 && when.getSeconds() !== 0 ? `:${pad(when.getSeconds())}` : '';
  const time = `${pad(when.getHours())}:${pad(when.getMinutes())}${seconds}`;
  const sameDay =
    when.getFullYear() === today.getFullYear() &&
    when.getMonth() === today.getMonth() &&
    when.getDate() === today.getDate();
  if (sameDay) return time;
  const days = (at - now) / 86_400_000;
  const day = DAYS[when.getDay()] ?? '';
  return days < 6
    ? `${day} ${time}`
    : `${when.getFullYear()}-${pad(when.getMonth() + 1)}-${pad(when.getDate())} ${time}`;
}

/** The time left as people count it down: `in 2 h 13 m`, `in 45 s`; `any moment now` once due. */
export function timeLeft(ms: number): string {
  return ms > 0 ? `in ${waitWords(ms)}` : 'any moment now';
}

/** "15:00 (in 2 h 13 m)"; past due: "15:00 (any moment now)". */
export function resetWhen(at: number, now: number): string {
  return `${clockAt(at, now)} (${timeLeft(at - now)})`;
}
