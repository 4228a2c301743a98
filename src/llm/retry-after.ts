/**
 * Reads how long a provider asks us to wait: `retry-after-ms` (Anthropic, milliseconds) first, then
 * `retry-after` as delta-seconds (fractions allowed) or an HTTP date. Returns milliseconds or null.
 */
export function parseRetryAfter(
  headers: { get(name: string): string | null },
  now: number = Date.now(),
): number | null {
  const ms = headers.get('retry-after-ms');
  if (ms !== null && /^\s*\d+(\.\d+)?\s*$/.test(ms)) return Math.round(Number(ms));

  const value = headers.get('retry-after');
  if (value === null) return null;
  if (/^\s*\d+(\.\d+)?\s*$/.test(value)) return Math.round(Number(value) * 1000);
  const date = Date.parse(value);
  if (Number.isNaN(date)) return null;
  return Math.max(0, date - now);
}
