/** Each agent's words for a usage limit, as the CLIs print them (docs/agents.md#usage-limits). */
import { describe, expect, it } from 'vitest';
import { claudeTranslator, claudeUsageLimitOf } from '../../src/agents/claude-code/claude-usage-limit.ts';
import { codexUsageLimitOf } from '../../src/agents/codex/codex-usage-limit.ts';
import { geminiUsageLimitOf } from '../../src/agents/gemini/gemini-usage-limit.ts';
import { opencodeTranslator } from '../../src/agents/opencode/opencode-translator.ts';
import type { StreamLine } from '../../src/agents/stream-line.ts';

const NOW = Date.UTC(2026, 10, 30, 14, 20, 30); // 14:20:30 UTC, 15:20:30 in Paris
const MINUTE_END = 59_000;

describe("Claude Code's words", () => {
  const of = (text: string, zone = 'UTC') => claudeUsageLimitOf(text, NOW, zone);

  it('a subscription window: the reset in the zone it names, to the end of the minute printed', () => {
    expect(of("You've hit your session limit · resets 3:53pm (UTC)")).toEqual({
      resetsAtMs: Date.UTC(2026, 10, 30, 15, 53) + MINUTE_END,
    });
    expect(of("You've hit your session limit · resets 4pm (Europe/Paris)")).toEqual({
      resetsAtMs: Date.UTC(2026, 10, 30, 15, 0) + MINUTE_END,
    });
    expect(of("You've hit your weekly limit · resets Dec 3, 3:30pm (UTC)")).toEqual({
      resetsAtMs: Date.UTC(2026, 11, 3, 15, 30) + MINUTE_END,
    });
    expect(
      of("You've hit your Opus limit · resets Jan 2, 2027, 9am (UTC) · /upgrade to keep using Claude Code"),
    ).toEqual({
      resetsAtMs: Date.UTC(2027, 0, 2, 9, 0) + MINUTE_END,
    });
    // No zone: its own local one (this machine's, given here).
    expect(of("You've hit your session limit · resets 5pm", 'Europe/Paris')).toEqual({
      resetsAtMs: Date.UTC(2026, 10, 30, 16, 0) + MINUTE_END,
    });
  });

  it("without a reset, the older epoch form, and an API key's spend limit", () => {
    expect(of("You've hit your usage limit · contact your admin to increase it")).toEqual({
      resetsAtMs: null,
    });
    expect(of('Claude AI usage limit reached|1796056200')).toEqual({ resetsAtMs: 1796056200_000 });
    expect(
      of(
        'API Error: 400 You have reached your specified API usage limits. You will regain access on 2026-12-01 at 00:00 UTC.',
      ),
    ).toEqual({ resetsAtMs: Date.UTC(2026, 11, 1) });
  });

  it('a short rate limit and other failures are not one; hostile text neither', () => {
    expect(of('API Error: Request rejected (429) · this may be a temporary capacity issue.')).toBeNull();
    expect(
      of('API Error: Server is temporarily limiting requests (not your usage limit) · Rate limited'),
    ).toBeNull();
    expect(of('Credit balance is too low')).toBeNull();
    expect(of(`You've hit your ${'x'.repeat(50_000)}`)).toBeNull();
    expect(of("You've hit your session limit · resets 99:99pm (Mars/Olympus)")).toEqual({ resetsAtMs: null });
  });

  it('its translator adds usage_limit to the failed result line only', () => {
    const translator = claudeTranslator(() => NOW, 'UTC');
    const failed = JSON.stringify({
      type: 'result',
      subtype: 'success',
      is_error: true,
      api_error_status: 429,
      result: "You've hit your session limit · resets 3:53pm (UTC)",
      session_id: 's',
    });
    const lines = translator.line(failed);
    expect(lines).toMatchObject({
      ok: true,
      lines: [{ type: 'result', usage_limit: { resets_at_ms: Date.UTC(2026, 10, 30, 15, 53) + MINUTE_END } }],
    });
    const ok = translator.line(
      JSON.stringify({
        type: 'result',
        subtype: 'success',
        is_error: false,
        result: "You've hit your session limit",
      }),
    );
    expect(ok.ok && ok.lines[0]).not.toHaveProperty('usage_limit');
  });
});

describe("Codex's words", () => {
  const of = (text: string) => codexUsageLimitOf(text, NOW, 'UTC');

  it('the ChatGPT usage limit: the local time it names, today or on its date', () => {
    expect(
      of(
        'You’ve hit your usage limit. Upgrade to Pro (https://chatgpt.com/explore/pro), visit https://chatgpt.com/settings/usage to purchase more credits or try again at 3:53 PM.',
      ),
    ).toEqual({ resetsAtMs: Date.UTC(2026, 10, 30, 15, 53) + MINUTE_END });
    expect(of("You've hit your usage limit. Try again at Jan 5th, 2027 3:04 PM.")).toEqual({
      resetsAtMs: Date.UTC(2027, 0, 5, 15, 4) + MINUTE_END,
    });
    expect(
      of(
        "You've hit your usage limit. Upgrade to Pro (https://openai.com/chatgpt/pricing) or try again in 5 days 22 hours 11 minutes.",
      ),
    ).toEqual({
      resetsAtMs: NOW + ((5 * 24 + 22) * 60 + 11) * 60_000,
    });
  });

  it("an API key's quota says no reset; a 429 of seconds is not one", () => {
    expect(of('Quota exceeded. Check your plan and billing details.')).toEqual({ resetsAtMs: null });
    expect(of('exceeded retry limit, last status: 429 Too Many Requests, request id: x')).toBeNull();
    expect(of('rate limit exceeded: Please try again in 1s.')).toBeNull();
  });
});

describe("Gemini CLI's words", () => {
  it('its daily quota says no reset; a quota whose suggested retry passes 5 minutes gives it', () => {
    expect(
      geminiUsageLimitOf('[API Error: You have exhausted your daily quota on this model.]\nPlease wait', NOW),
    ).toEqual({
      resetsAtMs: null,
    });
    expect(
      geminiUsageLimitOf('[API Error: You exceeded your current quota.\nSuggested retry after 3600s.]', NOW),
    ).toEqual({ resetsAtMs: NOW + 3_600_000 });
    expect(
      geminiUsageLimitOf('[API Error: You exceeded your current quota.\nSuggested retry after 1s.]', NOW),
    ).toBeNull();
    expect(geminiUsageLimitOf('[API Error: {"error":{"code":500}}]', NOW)).toBeNull();
  });
});

describe("opencode's retries (Ribosome's plugin line)", () => {
  const run = (next: number) => {
    let gaveUp = 0;
    const t = opencodeTranslator({ model: 'm', now: () => NOW, onGiveUp: () => gaveUp++ });
    const lines: StreamLine[] = [];
    const feed = (event: object) => {
      const out = t.line(JSON.stringify(event));
      if (out.ok) lines.push(...out.lines);
    };
    feed({ type: 'step_start', sessionID: 'ses' });
    feed({ type: 'ribosome.retry', sessionID: 'ses', attempt: 1, message: 'rate limited', next });
    lines.push(...(t.end?.() ?? []));
    return { lines, gaveUp };
  };

  it('a retry hours away gives the run up as a usage limit resetting then', () => {
    const { lines, gaveUp } = run(NOW + 3_600_000);
    expect(gaveUp).toBe(1);
    expect(lines.at(-1)).toMatchObject({
      type: 'result',
      is_error: true,
      usage_limit: { resets_at_ms: NOW + 3_600_000 },
    });
  });

  it('a retry seconds away is an api_retry, and the run goes on', () => {
    const { lines, gaveUp } = run(NOW + 2_000);
    expect(gaveUp).toBe(0);
    expect(lines).toContainEqual(
      expect.objectContaining({ type: 'system', subtype: 'api_retry', retry_delay_ms: 2_000 }),
    );
    expect(lines.at(-1)).not.toHaveProperty('usage_limit');
  });
});
