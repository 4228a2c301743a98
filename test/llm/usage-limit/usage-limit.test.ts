import { describe, expect, it } from 'vitest';
import {
  parseDuration,
  USAGE_LIMIT_MIN_RESET_MS,
  usageLimitOfHttp,
} from '../../../src/llm/usage-limit/usage-limit.ts';
import { parseClock, wallTimeToEpoch } from '../../../src/llm/usage-limit/wall-time.ts';

const NOW = Date.UTC(2026, 10, 30, 14, 20, 30); // 2026-11-30 14:20:30 UTC
const headers = (h: Record<string, string> = {}) => new Headers(h);

describe('usageLimitOfHttp: a usage limit told apart from a short rate limit', () => {
  it('Anthropic subscription: the unified window rejected, its reset in epoch seconds', () => {
    const h = headers({
      'anthropic-ratelimit-unified-status': 'rejected',
      'anthropic-ratelimit-unified-reset': '1796056200',
      'retry-after': '30',
    });
    expect(usageLimitOfHttp(429, h, { error: { type: 'rate_limit_error' } }, NOW)).toEqual({
      resetsAtMs: 1796056200_000,
    });
  });

  it("Anthropic API key: the spend limit's 400, its reset the minute it names (UTC)", () => {
    const body = {
      type: 'error',
      error: {
        type: 'invalid_request_error',
        message:
          'You have reached your specified API usage limits. You will regain access on 2026-12-01 at 00:00 UTC.',
      },
    };
    expect(usageLimitOfHttp(400, headers(), body, NOW)).toEqual({ resetsAtMs: Date.UTC(2026, 11, 1) });
    expect(usageLimitOfHttp(400, headers(), JSON.stringify(body), NOW)?.resetsAtMs).toBe(
      Date.UTC(2026, 11, 1),
    );
  });

  it("ChatGPT backend: usage_limit_reached's resets_at, else resets_in_seconds; OpenAI's insufficient_quota says none", () => {
    const reached = { error: { type: 'usage_limit_reached', resets_at: 1796056200, resets_in_seconds: 9 } };
    expect(usageLimitOfHttp(429, headers(), reached, NOW)).toEqual({ resetsAtMs: 1796056200_000 });
    const inSeconds = { error: { type: 'usage_limit_reached', resets_in_seconds: 600 } };
    expect(usageLimitOfHttp(429, headers(), inSeconds, NOW)).toEqual({ resetsAtMs: NOW + 600_000 });
    const quota = {
      error: { type: 'insufficient_quota', code: 'insufficient_quota', message: 'You exceeded' },
    };
    expect(usageLimitOfHttp(429, headers(), quota, NOW)).toEqual({ resetsAtMs: null });
  });

  it('Gemini: a per-day QuotaFailure is a usage limit, its RetryInfo the reset; a per-minute one with 30 s is not', () => {
    const google = (quotaId: string, retryDelay: string) => ({
      error: {
        code: 429,
        status: 'RESOURCE_EXHAUSTED',
        details: [
          { '@type': 'type.googleapis.com/google.rpc.QuotaFailure', violations: [{ quotaId }] },
          { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay },
        ],
      },
    });
    expect(
      usageLimitOfHttp(429, headers(), google('GenerateRequestsPerDayPerProjectPerModel', '43s'), NOW),
    ).toEqual({
      resetsAtMs: NOW + 43_000,
    });
    expect(
      usageLimitOfHttp(429, headers(), google('GenerateRequestsPerMinutePerProject', '30s'), NOW),
    ).toBeNull();
    expect(
      usageLimitOfHttp(429, headers(), google('GenerateRequestsPerMinutePerProject', '3600s'), NOW),
    ).toEqual({
      resetsAtMs: NOW + 3_600_000,
    });
  });

  it('any 429 whose reset is more than 5 minutes away is one; a retry-after of seconds stays a rate limit', () => {
    expect(usageLimitOfHttp(429, headers({ 'retry-after': '1' }), {}, NOW)).toBeNull();
    expect(usageLimitOfHttp(429, headers({ 'retry-after': '300' }), {}, NOW)).toEqual({
      resetsAtMs: NOW + USAGE_LIMIT_MIN_RESET_MS,
    });
    expect(usageLimitOfHttp(429, headers({ 'retry-after-ms': '299999' }), {}, NOW)).toBeNull();
    const reset = new Date(NOW + 2 * 3_600_000).toISOString();
    expect(usageLimitOfHttp(429, headers({ 'anthropic-ratelimit-tokens-reset': reset }), {}, NOW)).toEqual({
      resetsAtMs: NOW + 2 * 3_600_000,
    });
    expect(usageLimitOfHttp(429, headers({ 'x-ratelimit-reset-requests': '6h0m0s' }), {}, NOW)).toEqual({
      resetsAtMs: NOW + 6 * 3_600_000,
    });
    // A long retry-after on a 503 is an outage, not the account's limit.
    expect(usageLimitOfHttp(503, headers({ 'retry-after': '3600' }), {}, NOW)).toBeNull();
  });

  it('hostile or unrelated bodies are no usage limit', () => {
    for (const body of [null, 'x'.repeat(10_000), '{"error":', { error: 'usage_limit_reached' }, []]) {
      expect(usageLimitOfHttp(429, headers({ 'retry-after': '2' }), body, NOW)).toBeNull();
    }
    expect(
      usageLimitOfHttp(500, headers(), { error: { type: 'api_error', message: 'usage limit' } }, NOW),
    ).toBeNull();
  });

  it('parseDuration reads Google and OpenAI durations', () => {
    expect(parseDuration('43.5s')).toBe(43_500);
    expect(parseDuration('1m30s')).toBe(90_000);
    expect(parseDuration('850ms')).toBe(850);
    expect(parseDuration('6h0m0s')).toBe(21_600_000);
    expect(parseDuration('soon')).toBeNull();
    expect(parseDuration('')).toBeNull();
  });
});

describe('wall-clock times as agents print them', () => {
  it('reads 12-hour and 24-hour clocks; refuses a bare number and impossible times', () => {
    expect(parseClock('3pm')).toEqual({ hour: 15, minute: 0 });
    expect(parseClock('12:05 AM')).toEqual({ hour: 0, minute: 5 });
    expect(parseClock('15:00')).toEqual({ hour: 15, minute: 0 });
    expect(parseClock('3')).toBeNull();
    expect(parseClock('13pm')).toBeNull();
  });

  it("a time without a date is its next occurrence in the zone: today's, or tomorrow's once passed", () => {
    // 14:20:30 UTC is 15:20:30 in Paris.
    expect(wallTimeToEpoch({ hour: 16, minute: 0 }, 'Europe/Paris', NOW)).toBe(Date.UTC(2026, 10, 30, 15, 0));
    expect(wallTimeToEpoch({ hour: 15, minute: 20 }, 'Europe/Paris', NOW)).toBe(
      Date.UTC(2026, 10, 30, 14, 20),
    );
    expect(wallTimeToEpoch({ hour: 9, minute: 0 }, 'UTC', NOW)).toBe(Date.UTC(2026, 11, 1, 9, 0));
    // 06:20 in Los Angeles: 9am is still to come today.
    expect(wallTimeToEpoch({ hour: 9, minute: 0 }, 'America/Los_Angeles', NOW)).toBe(
      Date.UTC(2026, 10, 30, 17, 0),
    );
  });

  it('a date without a year is this year, or next once passed', () => {
    expect(wallTimeToEpoch({ hour: 15, minute: 0, date: { month: 12, day: 3 } }, 'UTC', NOW)).toBe(
      Date.UTC(2026, 11, 3, 15),
    );
    expect(wallTimeToEpoch({ hour: 15, minute: 0, date: { month: 1, day: 2 } }, 'UTC', NOW)).toBe(
      Date.UTC(2027, 0, 2, 15),
    );
    expect(wallTimeToEpoch({ hour: 15, minute: 0, date: { month: 13, day: 2 } }, 'UTC', NOW)).toBeNull();
  });
});
