/**
 * What one LLM request may cost at most, known before it goes out, and what a budget does with it
 * (docs/unattended.md#budgets): forward it, cap its output limit, or refuse it. Pure.
 */
import { type ModelPrice, maxOutputOf, priceOf } from '../pricing.ts';

export type WireApi = 'anthropic' | 'openai-responses' | 'gemini';

/**
 * Tokens a provider may add to what the request carries (Anthropic's tool-use system prompt is about
 * 350; role and turn markers a few per message, which the message's own JSON bytes already exceed).
 */
export const PROVIDER_ALLOWANCE_TOKENS = 4_096;

/**
 * The least output limit a capped request gets: below it most tool calls would be cut off mid-way
 * (and Anthropic's extended thinking needs a budget of 1,024 tokens under it). A request the budget
 * cannot pay for with this many is refused instead.
 */
export const MIN_OUTPUT_TOKENS = 1_024;

/** One request as a budget sees it. */
export type PricedCall = {
  api: WireApi;
  model: string;
  /** The output limit the request sets; undefined when it sets none (the model's maximum applies). */
  maxOutput: number | undefined;
  /**
   * An upper bound on its input tokens: the body's UTF-8 bytes (every token covers at least one byte
   * of the text it stands for, and the body holds all the text the model sees, in JSON that only adds
   * bytes) plus PROVIDER_ALLOWANCE_TOKENS.
   */
  inputBound: number;
  /** Anthropic extended thinking's budget_tokens, which must stay under max_tokens. */
  thinkingBudget?: number;
  /** The parsed body, to rewrite when capped. */
  json: Record<string, unknown>;
};

const GEMINI_PATH = /\/models\/([^/:]+):(?:generateContent|streamGenerateContent)$/;

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const count = (value: unknown): number | undefined =>
  typeof value === 'number' && Number.isInteger(value) && value > 0 ? value : undefined;

/** Which API a request line addresses, with the model a Gemini path names; undefined: not a model call. */
export function apiOf(method: string, url: string): { api: WireApi; pathModel?: string } | undefined {
  if (method !== 'POST') return undefined;
  const queryAt = url.indexOf('?');
  const path = queryAt === -1 ? url : url.slice(0, queryAt);
  if (path.endsWith('/v1/messages')) return { api: 'anthropic' };
  if (path.endsWith('/responses')) return { api: 'openai-responses' };
  const gemini = GEMINI_PATH.exec(path);
  if (gemini?.[1]) {
    let model = gemini[1];
    try {
      model = decodeURIComponent(model);
    } catch {}
    return { api: 'gemini', pathModel: model };
  }
  return undefined;
}

/** The request as a priced call, or undefined when it is no model call this module reads. */
export function callOf(method: string, url: string, body: Buffer): PricedCall | undefined {
  const route = apiOf(method, url);
  if (!route || body.length === 0) return undefined;
  let json: unknown;
  try {
    json = JSON.parse(body.toString('utf8'));
  } catch {
    return undefined;
  }
  if (!isObject(json)) return undefined;
  const inputBound = body.length + PROVIDER_ALLOWANCE_TOKENS;
  if (route.api === 'gemini') {
    const config = isObject(json.generationConfig) ? json.generationConfig : {};
    const model = route.pathModel ?? '';
    return { api: 'gemini', model, maxOutput: count(config.maxOutputTokens), inputBound, json };
  }
  if (typeof json.model !== 'string' || json.model === '') return undefined;
  if (route.api === 'openai-responses') {
    return { api: route.api, model: json.model, maxOutput: count(json.max_output_tokens), inputBound, json };
  }
  const thinking = isObject(json.thinking) && json.thinking.type === 'enabled' ? json.thinking : undefined;
  const thinkingBudget = count(thinking?.budget_tokens);
  return {
    api: 'anthropic',
    model: json.model,
    maxOutput: count(json.max_tokens),
    inputBound,
    ...(thinkingBudget ? { thinkingBudget } : {}),
    json,
  };
}

/** Per-token rates a worst case uses: input at the dearest input rate (a cache write's, usually). */
export function worstRates(price: ModelPrice): { input: number; output: number } {
  return {
    input: Math.max(price.input, price.cacheWrite, price.cacheRead) / 1_000_000,
    output: price.output / 1_000_000,
  };
}

/** The most `call` costs in USD with `maxOutput` output tokens. */
export function worstCost(
  call: Pick<PricedCall, 'inputBound'>,
  price: ModelPrice,
  maxOutput: number,
): number {
  const rates = worstRates(price);
  return call.inputBound * rates.input + maxOutput * rates.output;
}

export type SpendDecision =
  /** It fits as asked. */
  | { kind: 'forward'; worstUsd: number }
  /** It fits with its output limit lowered to `maxOutput`. */
  | { kind: 'cap'; maxOutput: number; worstUsd: number }
  /** Not even the least output fits: `leastUsd` is what it would have needed. */
  | { kind: 'refuse'; leastUsd: number }
  /** The model has no price: not checked (its cost still counts when it is reported). */
  | { kind: 'unpriced' };

/**
 * What a budget with `roomUsd` left does with `call`. Without an output limit in the request the
 * model's maximum (maxOutputOf) is its worst case; a cap is never below MIN_OUTPUT_TOKENS (nor, with
 * extended thinking, at or below its minimum budget of 1,024), unless the request asked for less.
 */
export function decide(call: PricedCall, roomUsd: number): SpendDecision {
  const lookup = priceOf(call.model);
  if (lookup.matched === null) return { kind: 'unpriced' };
  const { price } = lookup;
  const asked = call.maxOutput ?? maxOutputOf(call.model);
  const worstUsd = worstCost(call, price, asked);
  if (worstUsd <= roomUsd) return { kind: 'forward', worstUsd };
  const floor = Math.min(asked, call.thinkingBudget ? MIN_OUTPUT_TOKENS + 1 : MIN_OUTPUT_TOKENS);
  const rates = worstRates(price);
  const affordable = Math.floor((roomUsd - call.inputBound * rates.input) / rates.output);
  if (affordable < floor) return { kind: 'refuse', leastUsd: worstCost(call, price, floor) };
  return { kind: 'cap', maxOutput: affordable, worstUsd: worstCost(call, price, affordable) };
}

/** The request's body with its output limit set to `maxOutput` (its thinking budget kept under it). */
export function cappedBody(call: PricedCall, maxOutput: number): Buffer {
  const json: Record<string, unknown> = { ...call.json };
  if (call.api === 'anthropic') {
    json.max_tokens = maxOutput;
    if (call.thinkingBudget !== undefined && call.thinkingBudget >= maxOutput) {
      json.thinking = { ...(json.thinking as object), budget_tokens: maxOutput - 1 };
    }
  } else if (call.api === 'openai-responses') {
    json.max_output_tokens = maxOutput;
  } else {
    const config = isObject(json.generationConfig) ? json.generationConfig : {};
    json.generationConfig = { ...config, maxOutputTokens: maxOutput };
  }
  return Buffer.from(JSON.stringify(json));
}
