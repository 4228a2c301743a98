/**
 * A usage limit (script-schema.ts `usageLimit`) as each provider answers it, so the real CLIs
 * recognize it (docs/agents.md#usage-limits). Pure: `now` is the provider's clock.
 */
import type { GoogleErrorBody } from './gemini-builder.ts';
import type { PlayedUsageLimit } from './script-schema.ts';

/** An HTTP answer (wire-apis.ts's JsonReply, written out: that module imports this one). */
type JsonReply = { status: number; body: object; headers?: Record<string, string> };

const seconds = (ms: number) => Math.floor(ms / 1000);
/** Whole seconds from now to the reset, never below 1 (a reset passing this second still says 1). */
const secondsLeft = (turn: PlayedUsageLimit, now: number) =>
  Math.max(1, Math.ceil((turn.resetsAtMs - now) / 1000));

/** Anthropic's abbreviation of a window in its per-window headers. */
const CLAIM_ABBREV = { five_hour: '5h', seven_day: '7d' } as const;

/** "2026-04-01 at 00:00 UTC", as Anthropic words an API key's reset. */
function utcMinute(ms: number): string {
  const iso = new Date(ms).toISOString();
  return `${iso.slice(0, 10)} at ${iso.slice(11, 16)} UTC`;
}

/**
 * Anthropic. A subscription (OAuth): 429 rate_limit_error whose anthropic-ratelimit-unified-* headers
 * say the window is rejected until its reset (epoch seconds), which Claude Code words as "You've hit
 * your session limit · resets 3pm". An API key: its spend limit, a 400 invalid_request_error naming
 * the minute access comes back.
 */
export function anthropicUsageLimit(turn: PlayedUsageLimit, requestId: string, now: number): JsonReply {
  const { kind, window } = turn.usageLimit;
  if (kind === 'api-key') {
    const message = `You have reached your specified API usage limits. You will regain access on ${utcMinute(turn.resetsAtMs)}.`;
    return {
      status: 400,
      body: { type: 'error', error: { type: 'invalid_request_error', message }, request_id: requestId },
    };
  }
  const reset = String(seconds(turn.resetsAtMs));
  const abbrev = CLAIM_ABBREV[window];
  return {
    status: 429,
    headers: {
      'retry-after': String(secondsLeft(turn, now)),
      'anthropic-ratelimit-unified-status': 'rejected',
      'anthropic-ratelimit-unified-reset': reset,
      'anthropic-ratelimit-unified-representative-claim': window,
      'anthropic-ratelimit-unified-fallback': 'unavailable',
      [`anthropic-ratelimit-unified-${abbrev}-status`]: 'rejected',
      [`anthropic-ratelimit-unified-${abbrev}-utilization`]: '1.0',
      [`anthropic-ratelimit-unified-${abbrev}-reset`]: reset,
    },
    body: {
      type: 'error',
      error: { type: 'rate_limit_error', message: "This request would exceed your account's rate limit." },
      request_id: requestId,
    },
  };
}

/**
 * OpenAI. A subscription (the ChatGPT backend Codex signs in to): 429 usage_limit_reached with
 * resets_at (epoch seconds) and the x-codex-* window headers. An API key: 429 insufficient_quota,
 * which says no reset.
 */
export function openAiUsageLimit(turn: PlayedUsageLimit, now: number): JsonReply {
  if (turn.usageLimit.kind === 'api-key') {
    return {
      status: 429,
      body: {
        error: {
          message:
            'You exceeded your current quota, please check your plan and billing details. For more information on this error, read the docs: https://platform.openai.com/docs/guides/error-codes/api-errors.',
          type: 'insufficient_quota',
          param: null,
          code: 'insufficient_quota',
        },
      },
    };
  }
  const resetsAt = seconds(turn.resetsAtMs);
  const left = secondsLeft(turn, now);
  const minutes = turn.usageLimit.window === 'seven_day' ? '10080' : '300';
  return {
    status: 429,
    headers: {
      'x-codex-plan-type': 'plus',
      'x-codex-active-limit': 'codex',
      'x-codex-primary-used-percent': '100',
      'x-codex-primary-window-minutes': minutes,
      'x-codex-primary-reset-after-seconds': String(left),
      'x-codex-primary-reset-at': String(resetsAt),
    },
    body: {
      error: {
        type: 'usage_limit_reached',
        message: 'The usage limit has been reached',
        plan_type: 'plus',
        resets_at: resetsAt,
        eligible_promo: null,
        resets_in_seconds: left,
      },
    },
  };
}

/**
 * Gemini API: 429 RESOURCE_EXHAUSTED for a daily quota, its QuotaFailure naming the per-day quota and
 * its RetryInfo (and message) the time to the reset.
 */
export function geminiUsageLimit(turn: PlayedUsageLimit, model: string, now: number): JsonReply {
  const left = secondsLeft(turn, now);
  const body: GoogleErrorBody = {
    error: {
      code: 429,
      message: `You exceeded your current quota, please check your plan and billing details. For more information on this error, head to: https://ai.google.dev/gemini-api/docs/rate-limits.\n* Quota exceeded for metric: generativelanguage.googleapis.com/generate_content_free_tier_requests, limit: 250, model: ${model}\nPlease retry in ${left}s.`,
      status: 'RESOURCE_EXHAUSTED',
      details: [
        {
          '@type': 'type.googleapis.com/google.rpc.QuotaFailure',
          violations: [
            {
              quotaMetric: 'generativelanguage.googleapis.com/generate_content_free_tier_requests',
              quotaId: 'GenerateRequestsPerDayPerProjectPerModel-FreeTier',
              quotaDimensions: { location: 'global', model },
              quotaValue: '250',
            },
          ],
        },
        {
          '@type': 'type.googleapis.com/google.rpc.Help',
          links: [
            {
              description: 'Learn more about Gemini API quotas',
              url: 'https://ai.google.dev/gemini-api/docs/rate-limits',
            },
          ],
        },
        { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: `${left}s` },
      ],
    },
  };
  return { status: 429, body };
}
