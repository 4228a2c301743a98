/**
 * How long a provider asked to wait, as it reaches the engine from an agent's final result line:
 * the built-in agent prints it as `retry_after_ms` (from the provider's retry-after headers); Claude
 * Code prints no such field, so its error text is read for a "retry-after: N" / "retry after N
 * seconds" / "retry-after-ms: N" phrase. Undefined when neither says anything.
 */
export function retryAfterHint(
  field: number | null | undefined,
  message: string | undefined,
): number | undefined {
  if (typeof field === 'number' && Number.isFinite(field) && field >= 0) return Math.round(field);
  return message === undefined ? undefined : retryAfterFromText(message);
}

const MS = /retry[-_ ]after[-_ ]ms["']?\s*[:=]?\s*["']?(\d+(?:\.\d+)?)/i;
const SECONDS =
  /retry[-_ ]after["']?\s*[:=]?\s*(?:in\s+)?["']?(\d+(?:\.\d+)?)\s*(ms|milliseconds?|s|sec|seconds?)?\b/i;

export function retryAfterFromText(message: string): number | undefined {
  const ms = MS.exec(message);
  if (ms?.[1]) return Math.round(Number(ms[1]));
  const s = SECONDS.exec(message);
  if (!s?.[1]) return undefined;
  const value = Number(s[1]);
  return Math.round(s[2]?.toLowerCase().startsWith('m') ? value : value * 1000);
}
