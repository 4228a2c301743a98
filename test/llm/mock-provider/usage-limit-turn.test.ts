/** The scripted provider's usageLimit turn: held until its reset, worded as each provider does. */
import { describe, expect, it } from 'vitest';
import type { RequestView } from '../../../src/llm/mock-provider/request-view.ts';
import { parseScript } from '../../../src/llm/mock-provider/script-loader.ts';
import { createScriptPlayer } from '../../../src/llm/mock-provider/script-player.ts';
import type { PlayedUsageLimit } from '../../../src/llm/mock-provider/script-schema.ts';
import {
  anthropicUsageLimit,
  geminiUsageLimit,
  openAiUsageLimit,
} from '../../../src/llm/mock-provider/usage-limit-replies.ts';
import { usageLimitOfHttp } from '../../../src/llm/usage-limit/usage-limit.ts';

const view: RequestView = {
  api: 'anthropic',
  model: 'claude-sonnet-4-5',
  system: '',
  firstUser: 'hello',
  lastUser: 'hello',
  hasTools: false,
  tools: [],
  deferredNamespaces: [],
  headers: {},
};
const T0 = Date.UTC(2026, 10, 30, 14, 0, 0);

function scripted(script: unknown) {
  const parsed = parseScript(script as never);
  if (!parsed.ok) throw new Error(parsed.error.message);
  return parsed.script;
}

describe('the usageLimit turn', () => {
  it('fixes the reset on a whole second, as the headers say it in seconds (so no agent comes back just before it)', () => {
    const player = createScriptPlayer(
      scripted({ turns: [{ usageLimit: { resetsIn: 60 } }, { content: [{ text: 'after' }] }] }),
      {},
      () => T0 + 300,
    );
    const refused = player.next(view);
    expect('usageLimit' in refused.turn && refused.turn.resetsAtMs).toBe(T0 + 61_000);
  });

  it('a player started again (a restarted server) holds a limit until the reset the first one fixed', () => {
    let now = T0;
    const script = scripted({ turns: [{ usageLimit: { resetsIn: 60 } }, { content: [{ text: 'after' }] }] });
    const first = createScriptPlayer(script, {}, () => now);
    const refused = first.next(view);
    expect('usageLimit' in refused.turn && refused.turn.resetsAtMs).toBe(T0 + 60_000);
    // The server dies 20 s later; the next one's provider starts from what was saved.
    now = T0 + 20_000;
    const again = createScriptPlayer(script, first.positions(), () => now, first.limits());
    const still = again.next(view);
    expect('usageLimit' in still.turn && still.turn.resetsAtMs).toBe(T0 + 60_000);
    now = T0 + 60_000;
    expect(again.next(view).turn).toMatchObject({ content: [{ text: 'after' }] });
    expect(again.limits()).toEqual({});
  });

  it('refuses every request until the reset fixed at its first refusal, then plays the next turn', () => {
    let now = T0;
    const player = createScriptPlayer(
      scripted({ turns: [{ usageLimit: { resetsIn: 60 } }, { content: [{ text: 'after' }] }] }),
      {},
      () => now,
    );
    const first = player.next(view);
    expect(first.turn).toMatchObject({
      usageLimit: { resetsIn: 60, kind: 'subscription' },
      resetsAtMs: T0 + 60_000,
    });
    now = T0 + 59_999;
    expect(player.next(view).turn).toMatchObject({ resetsAtMs: T0 + 60_000 });
    expect(player.positions()).toEqual({ default: 0 });
    now = T0 + 60_000;
    expect(player.next(view).turn).toEqual(expect.objectContaining({ content: [{ text: 'after' }] }));
  });

  it("an API key's limit resets on a whole minute; whenExhausted's starts again once passed", () => {
    let now = T0 + 10_500;
    const player = createScriptPlayer(
      scripted({ whenExhausted: { usageLimit: { resetsIn: 5, kind: 'api-key' } } }),
      {},
      () => now,
    );
    expect(player.next(view).turn).toMatchObject({ resetsAtMs: T0 + 60_000 });
    now = T0 + 61_000;
    expect(player.next(view).turn).toMatchObject({ resetsAtMs: T0 + 120_000 });
  });

  it('a script refuses a usageLimit without resetsIn or with an unknown kind', () => {
    expect(parseScript({ turns: [{ usageLimit: {} }] } as never).ok).toBe(false);
    expect(parseScript({ turns: [{ usageLimit: { resetsIn: 1, kind: 'team' } }] } as never).ok).toBe(false);
  });
});

describe("each provider's answer reads back as the limit it plays", () => {
  const limit = (kind: 'subscription' | 'api-key'): PlayedUsageLimit => ({
    usageLimit: { resetsIn: 60, kind, window: 'five_hour' },
    resetsAtMs: T0 + 60_000,
  });
  const read = (reply: { status: number; body: object; headers?: Record<string, string> }) =>
    usageLimitOfHttp(reply.status, new Headers(reply.headers ?? {}), reply.body, T0);

  it('Anthropic: a subscription 429 with its unified headers; an API key 400 naming the minute', () => {
    const sub = anthropicUsageLimit(limit('subscription'), 'req_1', T0);
    expect(sub.status).toBe(429);
    expect(sub.headers).toMatchObject({
      'anthropic-ratelimit-unified-status': 'rejected',
      'anthropic-ratelimit-unified-reset': String((T0 + 60_000) / 1000),
      'anthropic-ratelimit-unified-representative-claim': 'five_hour',
      'retry-after': '60',
    });
    expect(read(sub)).toEqual({ resetsAtMs: T0 + 60_000 });
    const key = anthropicUsageLimit(limit('api-key'), 'req_2', T0);
    expect(key.status).toBe(400);
    expect(key.body).toMatchObject({
      error: {
        type: 'invalid_request_error',
        message: expect.stringContaining('on 2026-11-30 at 14:01 UTC.'),
      },
    });
    expect(read(key)).toEqual({ resetsAtMs: T0 + 60_000 });
  });

  it('OpenAI: usage_limit_reached with resets_at; an API key insufficient_quota', () => {
    const sub = openAiUsageLimit(limit('subscription'), T0);
    expect(sub).toMatchObject({
      status: 429,
      body: {
        error: { type: 'usage_limit_reached', resets_at: (T0 + 60_000) / 1000, resets_in_seconds: 60 },
      },
    });
    expect(read(sub)).toEqual({ resetsAtMs: T0 + 60_000 });
    const key = openAiUsageLimit(limit('api-key'), T0);
    expect(key.body).toMatchObject({ error: { code: 'insufficient_quota' } });
    expect(read(key)).toEqual({ resetsAtMs: null });
  });

  it('Gemini: RESOURCE_EXHAUSTED for a daily quota, with RetryInfo', () => {
    const reply = geminiUsageLimit(limit('subscription'), 'gemini-2.5-flash', T0);
    expect(reply).toMatchObject({ status: 429, body: { error: { status: 'RESOURCE_EXHAUSTED' } } });
    expect(JSON.stringify(reply.body)).toContain('"retryDelay":"60s"');
    expect(read(reply)).toEqual({ resetsAtMs: T0 + 60_000 });
  });
});
