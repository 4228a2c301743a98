/**
 * Model prices in USD per million tokens, and the cost of a call's usage.
 *
 * Ids are matched by the longest known prefix, so dated ids (`claude-sonnet-4-5-20250929`) and
 * provider suffixes (`...-v1`) find their entry. An id whose prefix is a family (`claude-opus-4`) but
 * whose next part is a version we do not list (`claude-opus-4-9`) gets the family's current price,
 * flagged `estimated`. Cache writes are priced at the 5-minute rate (1.25x input), cache reads at
 * 0.1x input. Long-context (>200k) surcharges are not modelled.
 *
 * Unknown models get FALLBACK_PRICE (the Opus 4.5+ rate, the same fallback Claude Code uses, so both
 * agents report alike and a budget errs on the high side), flagged `estimated`.
 * The figures match the costs Claude Code 2.1.197 reports for the same usage (it remaps Opus 4 and
 * 4.1 ids to Opus 4.8 itself; we keep their list price).
 */
import type { Usage, UsageDelta } from './schemas.ts';

export type ModelPrice = {
  input: number;
  output: number;
  cacheWrite: number;
  cacheRead: number;
};

const price = (input: number, output: number): ModelPrice => ({
  input,
  output,
  cacheWrite: input * 1.25,
  cacheRead: input * 0.1,
});

/** An OpenAI price: its own cached-input rate, cache writes at 1.25x input. */
const openai = (input: number, output: number, cacheRead: number): ModelPrice => ({
  input,
  output,
  cacheWrite: input * 1.25,
  cacheRead,
});

const gemini = (input: number, output: number, cacheRead: number): ModelPrice => ({
  input,
  output,
  cacheWrite: input,
  cacheRead,
});

/** Longest matching prefix wins. A family entry (no minor version) holds the family's current price. */
export const PRICES: Readonly<Record<string, ModelPrice>> = {
  'claude-opus-4': price(5, 25),
  // Opus 4 and 4.1 kept the old $15/$75; 4.5 and later cost $5/$25.
  'claude-opus-4-0': price(15, 75),
  'claude-opus-4-20250514': price(15, 75),
  'claude-opus-4-1': price(15, 75),
  'claude-opus-4-5': price(5, 25),
  'claude-opus-4-6': price(5, 25),
  'claude-opus-4-7': price(5, 25),
  'claude-opus-4-8': price(5, 25),
  'claude-sonnet-5': price(3, 15),
  'claude-sonnet-4': price(3, 15),
  'claude-sonnet-4-0': price(3, 15),
  'claude-sonnet-4-5': price(3, 15),
  'claude-sonnet-4-6': price(3, 15),
  'claude-haiku-4': price(1, 5),
  'claude-haiku-4-5': price(1, 5),
  'claude-3-7-sonnet': price(3, 15),
  'claude-3-5-sonnet': price(3, 15),
  'claude-3-5-haiku': price(0.8, 4),
  'claude-3-haiku': { input: 0.25, output: 1.25, cacheWrite: 0.3, cacheRead: 0.03 },
  'claude-3-opus': price(15, 75),
  // OpenAI models Codex runs (its default gpt-6.2-sol): list prices of OpenAI's API pricing page, Standard
  // tier, up to 272K input tokens, as of November 2026. OpenAI prices cached input and 30-minute cache
  // writes per model (cached mostly at 0.1x input, writes at 1.25x); longer inputs, Fast and Batch
  // rates are not modelled.
  'gpt-6.2-astra': openai(8, 40, 0.4),
  'gpt-6.2-sol': openai(2, 10, 0.1),
  'gpt-6.1-sol': openai(2, 10, 0.1),
  'gpt-6.1-terra': openai(1, 5, 0.05),
  'gpt-6-astra': openai(10, 50, 1),
  'gpt-6-sol': openai(2, 10, 0.2),
  'gpt-6-luna': openai(0.1, 0.5, 0.01),
  'gpt-5.6-sol': openai(4, 20, 0.4),
  'gpt-5.6-terra': openai(2, 12, 0.2),
  'gpt-5.6-luna': openai(0.2, 1.2, 0.02),
  'gpt-5.5': openai(5, 30, 0.5),
  'gpt-5': openai(1.25, 10, 0.125),
  'gpt-5-codex': openai(1.25, 10, 0.125),
  'gpt-5-mini': openai(0.25, 2, 0.025),
  // Gemini (Gemini CLI reports no cost): Google's list prices for the Gemini API's paid tier as of
  // November 2026, prompts up to 200k tokens; thinking is billed as output. Implicit caching has no
  // write charge; cache reads are Google's cached-input price.
  'gemini-3-pro': gemini(2, 12, 0.2),
  'gemini-3-flash': gemini(0.5, 3, 0.05),
  'gemini-2.5-pro': gemini(1.25, 10, 0.125),
  'gemini-2.5-flash': gemini(0.3, 2.5, 0.03),
  'gemini-2.5-flash-lite': gemini(0.1, 0.4, 0.01),
  'gemini-2.0-flash': gemini(0.1, 0.4, 0.025),
  'gemini-2.0-flash-lite': gemini(0.075, 0.3, 0.075),
};

export const FALLBACK_PRICE: ModelPrice = price(5, 25);

export type PriceLookup = { price: ModelPrice; estimated: boolean; matched: string | null };

// After a family prefix, `-9` or `-10` is a minor version; a date (`-20250514`) or `-v1` is not.
const VERSION_PART = /^-\d{1,2}(?=$|[-@])/;

export function priceOf(model: string): PriceLookup {
  const id = canonicalId(model);
  const best = longestPrefix(id, PRICES);
  const known = best === null ? undefined : PRICES[best];
  if (!best || !known) return { price: FALLBACK_PRICE, estimated: true, matched: null };
  return { price: known, estimated: VERSION_PART.test(id.slice(best.length)), matched: best };
}

/**
 * The most output tokens a model gives in one answer (its documented maximum), by the same longest
 * prefix as PRICES: what a request that sets no output limit may cost at most. Models listed in PRICES
 * but not here get DEFAULT_MAX_OUTPUT_TOKENS, above every maximum listed.
 */
export const MAX_OUTPUT_TOKENS: Readonly<Record<string, number>> = {
  'claude-opus-4': 64_000,
  'claude-opus-4-0': 32_000,
  'claude-opus-4-20250514': 32_000,
  'claude-opus-4-1': 32_000,
  'claude-sonnet-4': 64_000,
  'claude-sonnet-5': 64_000,
  'claude-haiku-4': 64_000,
  // 64k, 128k with the output-128k beta: the larger one.
  'claude-3-7-sonnet': 128_000,
  'claude-3-5-sonnet': 8_192,
  'claude-3-5-haiku': 8_192,
  'claude-3-haiku': 4_096,
  'claude-3-opus': 4_096,
  'gpt-5': 128_000,
  'gemini-3-pro': 65_536,
  'gemini-3-flash': 65_536,
  'gemini-2.5-pro': 65_536,
  'gemini-2.5-flash': 65_536,
  'gemini-2.5-flash-lite': 65_536,
  'gemini-2.0-flash': 8_192,
  'gemini-2.0-flash-lite': 8_192,
};

export const DEFAULT_MAX_OUTPUT_TOKENS = 128_000;

/** The longest key of `table` that `id` starts with, ending at a `-` or `@` (or the id's end). */
function longestPrefix(id: string, table: Readonly<Record<string, unknown>>): string | null {
  let best: string | null = null;
  for (const prefix of Object.keys(table)) {
    const rest = id.slice(prefix.length);
    const fits = id.startsWith(prefix) && (rest === '' || rest[0] === '-' || rest[0] === '@');
    if (fits && prefix.length > (best?.length ?? 0)) best = prefix;
  }
  return best;
}

/** Bedrock and Vertex spell ids `anthropic.claude-...` and `claude-...@date`. */
function canonicalId(model: string): string {
  return model.toLowerCase().replace(/^(?:[a-z]{2}\.)?anthropic[./]/, '');
}

/** The model's maximum output per answer (MAX_OUTPUT_TOKENS, else DEFAULT_MAX_OUTPUT_TOKENS). */
export function maxOutputOf(model: string): number {
  const best = longestPrefix(canonicalId(model), MAX_OUTPUT_TOKENS);
  return best === null ? DEFAULT_MAX_OUTPUT_TOKENS : (MAX_OUTPUT_TOKENS[best] ?? DEFAULT_MAX_OUTPUT_TOKENS);
}

export type Cost = { usd: number; estimated: boolean };

export function costOf(model: string, usage: Usage | UsageDelta): Cost {
  const { price: p, estimated } = priceOf(model);
  const usd =
    ((usage.input_tokens ?? 0) * p.input +
      (usage.output_tokens ?? 0) * p.output +
      (usage.cache_creation_input_tokens ?? 0) * p.cacheWrite +
      (usage.cache_read_input_tokens ?? 0) * p.cacheRead) /
    1_000_000;
  return { usd, estimated };
}
