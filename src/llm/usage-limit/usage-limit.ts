/**
 * A usage limit (docs/unattended.md#usage-limits): a subscription's window or a quota used up until a
 * reset, told apart from a short rate limit by what the provider answered. Pure: `now` is given.
 */

/**
 * A 429 whose reset is further away than this is a usage limit, whatever its wording: a backoff of
 * seconds cannot help (agents give up retry-afters of a minute or so; Gemini CLI above 300 s).
 */
export const USAGE_LIMIT_MIN_RESET_MS = 5 * 60_000;

/** A usage limit reached: when it resets (epoch ms), or null when the provider did not say. */
export type UsageLimit = { resetsAtMs: number | null };

type Headers = { get(name: string): string | null };

/** Seconds, epoch seconds and durations as providers write them. */
const num = (value: unknown): number | null => {
  const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  return typeof n === 'number' && Number.isFinite(n) ? n : null;
};

/** "1m30s", "6h0m0s", "850ms", "43.5s" (OpenAI's x-ratelimit-reset-*, Google's retryDelay): ms, or null. */
export function parseDuration(text: string): number | null {
  const m =
    /^\s*(?:(\d+(?:\.\d+)?)h)?(?:(\d+(?:\.\d+)?)m(?!s))?(?:(\d+(?:\.\d+)?)s)?(?:(\d+(?:\.\d+)?)ms)?\s*$/.exec(
      text,
    );
  if (!m || m.slice(1).every((part) => part === undefined)) return null;
  const [h, min, s, ms] = m.slice(1).map((part) => Number(part ?? 0)) as [number, number, number, number];
  return Math.round(((h * 60 + min) * 60 + s) * 1000 + ms);
}

/** "You will regain access on 2026-04-01 at 00:00 UTC" (Anthropic, an API key's spend limit). */
const ANTHROPIC_API_LIMIT =
  /You have reached your specified API usage limits\.?(?:\s*You will regain access on (\d{4})-(\d{2})-(\d{2}) at (\d{2}):(\d{2}) UTC)?/;

/** An Anthropic API-key usage limit in any text that quotes its message, with its reset when said. */
export function anthropicApiLimitOf(text: string): UsageLimit | null {
  const m = ANTHROPIC_API_LIMIT.exec(text);
  if (!m) return null;
  if (m[1] === undefined) return { resetsAtMs: null };
  const [y, mo, d, h, mi] = m.slice(1, 6).map(Number) as [number, number, number, number, number];
  return { resetsAtMs: Date.UTC(y, mo - 1, d, h, mi) };
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The provider's error object (Anthropic's, OpenAI's or Google's `error`), when the body has one. */
function errorOf(body: unknown): Record<string, unknown> | null {
  if (typeof body === 'string') {
    try {
      return errorOf(JSON.parse(body));
    } catch {
      return null;
    }
  }
  return isObject(body) && isObject(body.error) ? body.error : null;
}

/** The ChatGPT backend's `usage_limit_reached` (resets_at, resets_in_seconds), OpenAI's `insufficient_quota`. */
function openAiLimitOf(error: Record<string, unknown>, now: number): UsageLimit | null {
  const kind = [error.type, error.code].find(
    (v) => v === 'usage_limit_reached' || v === 'insufficient_quota',
  );
  if (kind === undefined) return null;
  if (kind === 'insufficient_quota') return { resetsAtMs: null };
  const at = num(error.resets_at);
  if (at !== null) return { resetsAtMs: at * 1000 };
  const inSeconds = num(error.resets_in_seconds);
  return { resetsAtMs: inSeconds === null ? null : now + inSeconds * 1000 };
}

/** Google's details: a per-day quota (QuotaFailure) is a usage limit; RetryInfo says when it resets. */
function googleDetailsOf(error: Record<string, unknown>): { daily: boolean; retryMs: number | null } {
  const details = Array.isArray(error.details) ? error.details.filter(isObject) : [];
  let daily = false;
  let retryMs: number | null = null;
  for (const detail of details) {
    const type = String(detail['@type'] ?? '');
    if (type.endsWith('google.rpc.QuotaFailure') && Array.isArray(detail.violations)) {
      daily ||= detail.violations.some((v) => isObject(v) && /PerDay|Daily/.test(String(v.quotaId ?? '')));
    }
    if (type.endsWith('google.rpc.RetryInfo') && typeof detail.retryDelay === 'string') {
      retryMs = parseDuration(detail.retryDelay);
    }
  }
  return { daily, retryMs };
}

/** The longest wait a 429's headers ask for, in ms from `now`: retry-after and the per-limit resets. */
export function headerWaitMs(headers: Headers, now: number): number | null {
  const waits: number[] = [];
  const ms = num(headers.get('retry-after-ms'));
  if (ms !== null) waits.push(ms);
  const after = headers.get('retry-after');
  if (after !== null) {
    const seconds = num(after);
    const date = seconds === null ? Date.parse(after) : Number.NaN;
    if (seconds !== null) waits.push(seconds * 1000);
    else if (!Number.isNaN(date)) waits.push(date - now);
  }
  // Anthropic's per-limit resets (RFC 3339) and OpenAI's (durations).
  for (const name of ['requests', 'tokens', 'input-tokens', 'output-tokens']) {
    const reset = headers.get(`anthropic-ratelimit-${name}-reset`);
    const at = reset === null ? Number.NaN : Date.parse(reset);
    if (!Number.isNaN(at)) waits.push(at - now);
    const openAi = headers.get(`x-ratelimit-reset-${name}`);
    const duration = openAi === null ? null : parseDuration(openAi);
    if (duration !== null) waits.push(duration);
  }
  return waits.length === 0 ? null : Math.max(...waits);
}

/**
 * The usage limit an HTTP error reports, or null for any other error (a short rate limit included).
 * `body`: the parsed JSON body or its text.
 */
export function usageLimitOfHttp(
  status: number,
  headers: Headers,
  body: unknown,
  now: number = Date.now(),
): UsageLimit | null {
  // Anthropic, a subscription: its unified window is rejected until its reset (epoch seconds).
  if (headers.get('anthropic-ratelimit-unified-status') === 'rejected' && status === 429) {
    const reset = num(headers.get('anthropic-ratelimit-unified-reset'));
    return { resetsAtMs: reset === null ? null : reset * 1000 };
  }
  const error = errorOf(body);
  const message = typeof error?.message === 'string' ? error.message : typeof body === 'string' ? body : '';
  const anthropicApi = anthropicApiLimitOf(message);
  if (anthropicApi) return anthropicApi;
  if (error) {
    const openAi = openAiLimitOf(error, now);
    if (openAi) return openAi;
  }
  if (status !== 429) return null;
  const google = error ? googleDetailsOf(error) : { daily: false, retryMs: null };
  const wait = Math.max(headerWaitMs(headers, now) ?? 0, google.retryMs ?? 0);
  if (google.daily) return { resetsAtMs: wait > 0 ? now + wait : null };
  return wait >= USAGE_LIMIT_MIN_RESET_MS ? { resetsAtMs: now + wait } : null;
}
