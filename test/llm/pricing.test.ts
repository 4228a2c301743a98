import { describe, expect, it } from 'vitest';
import { costOf, FALLBACK_PRICE, priceOf } from '../../src/llm/pricing.ts';

describe('priceOf', () => {
  it.each([
    ['claude-sonnet-4-5', 3, 15],
    ['claude-sonnet-4-5-20250929', 3, 15],
    ['claude-sonnet-4-20250514', 3, 15],
    ['claude-sonnet-4-6', 3, 15],
    ['claude-sonnet-5', 3, 15],
    ['claude-opus-4-5-20251101', 5, 25],
    ['claude-opus-4-8', 5, 25],
    ['claude-opus-4-1-20250805', 15, 75],
    ['claude-opus-4-20250514', 15, 75],
    ['claude-haiku-4-5-20251001', 1, 5],
    ['claude-3-5-haiku-20241022', 0.8, 4],
    ['claude-3-7-sonnet-latest', 3, 15],
    ['anthropic.claude-haiku-4-5-20251001-v1:0', 1, 5],
    ['claude-sonnet-4-5@20250929', 3, 15],
  ])('%s costs $%s in / $%s out per million', (model, input, output) => {
    const found = priceOf(model);
    expect(found.estimated).toBe(false);
    expect(found.price.input).toBe(input);
    expect(found.price.output).toBe(output);
    expect(found.price.cacheWrite).toBeCloseTo(input * 1.25);
    expect(found.price.cacheRead).toBeCloseTo(input * 0.1);
  });

  it.each([
    ['gpt-6.2-sol', 2, 10, 0.1],
    ['gpt-6.2-astra', 8, 40, 0.4],
    ['gpt-6-luna', 0.1, 0.5, 0.01],
    ['gpt-5.5', 5, 30, 0.5],
    ['gpt-5-codex', 1.25, 10, 0.125],
  ])('OpenAI %s (Codex): $%s in / $%s out, cached input $%s, per million', (model, input, output, cached) => {
    expect(priceOf(model)).toMatchObject({ estimated: false, price: { input, output, cacheRead: cached } });
  });

  it.each([
    ['gemini-2.5-pro', 1.25, 10, 0.125],
    ['gemini-2.5-flash', 0.3, 2.5, 0.03],
    ['gemini-2.5-flash-lite', 0.1, 0.4, 0.01],
    ['gemini-2.5-flash-preview-09-2025', 0.3, 2.5, 0.03],
    ['gemini-3-pro-preview', 2, 12, 0.2],
    ['gemini-3-flash-preview', 0.5, 3, 0.05],
  ])(
    '%s (Gemini CLI) costs $%s in / $%s out, cached input $%s, per million',
    (model, input, output, cached) => {
      const found = priceOf(model);
      expect(found.estimated).toBe(false);
      expect(found.price).toEqual({ input, output, cacheWrite: input, cacheRead: cached });
    },
  );

  it('prices an unlisted version of a known family at the family rate, flagged estimated', () => {
    expect(priceOf('claude-opus-4-9')).toMatchObject({
      estimated: true,
      matched: 'claude-opus-4',
      price: { input: 5 },
    });
    expect(priceOf('claude-sonnet-4-7-20260101')).toMatchObject({ estimated: true, price: { input: 3 } });
  });

  it('prices an unknown model with the documented fallback, flagged estimated', () => {
    expect(priceOf('llama-4-maverick')).toEqual({ price: FALLBACK_PRICE, estimated: true, matched: null });
    expect(priceOf('claude-opusx')).toMatchObject({ estimated: true, matched: null });
  });
});

describe('costOf', () => {
  it('adds input, output, cache writes and cache reads', () => {
    const cost = costOf('claude-sonnet-4-5', {
      input_tokens: 1_000_000,
      output_tokens: 100_000,
      cache_creation_input_tokens: 200_000,
      cache_read_input_tokens: 1_000_000,
    });
    expect(cost.estimated).toBe(false);
    expect(cost.usd).toBeCloseTo(3 + 1.5 + 0.75 + 0.3, 10);
  });

  it('matches what Claude Code reports for the same usage (10 in, 5 out on sonnet 4.5)', () => {
    expect(costOf('claude-sonnet-4-5', { input_tokens: 10, output_tokens: 5 }).usd).toBeCloseTo(0.000105, 12);
  });

  it('treats null cache counts as zero', () => {
    const cost = costOf('claude-haiku-4-5', {
      input_tokens: 1000,
      output_tokens: 0,
      cache_creation_input_tokens: null,
      cache_read_input_tokens: null,
    });
    expect(cost.usd).toBeCloseTo(0.001, 12);
  });
});
