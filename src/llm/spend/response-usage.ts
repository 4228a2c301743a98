/**
 * The usage a provider's answer reports, read from its bytes as they are relayed (SSE or JSON), in
 * Anthropic's terms so `costOf` prices it. Only a complete answer gives a usage: a cut stream may
 * have cost more than it said so far.
 */
import { StringDecoder } from 'node:string_decoder';
import type { Usage } from '../schemas.ts';
import type { WireApi } from './worst-case.ts';

export type UsageReader = {
  push(chunk: Buffer): void;
  /** The answer ended normally: its usage, or undefined when it reported none (or not all of it). */
  end(): Usage | undefined;
};

/** JSON answers bigger than this are not read (a usage of undefined): the budget keeps its worst case. */
const MAX_JSON_BYTES = 16 * 1024 * 1024;

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const num = (value: unknown): number => (typeof value === 'number' && value >= 0 ? value : 0);

type Tally = { usage?: Usage; complete: boolean };

/** Folds one event or JSON object of an answer into the tally. */
function fold(api: WireApi, tally: Tally, event: unknown): void {
  if (!isObject(event)) return;
  if (api === 'anthropic') {
    const type = event.type;
    const usage = type === 'message_start' && isObject(event.message) ? event.message.usage : event.usage;
    if (isObject(usage)) {
      const before: Partial<Usage> = tally.usage ?? {};
      const pick = (key: keyof Usage) => (key in usage ? num(usage[key]) : num(before[key]));
      tally.usage = {
        input_tokens: pick('input_tokens'),
        output_tokens: pick('output_tokens'),
        cache_creation_input_tokens: pick('cache_creation_input_tokens'),
        cache_read_input_tokens: pick('cache_read_input_tokens'),
      };
    }
    // A JSON answer (type message) is whole; a stream once message_stop came.
    if (type === 'message' || type === 'message_stop') tally.complete = true;
    return;
  }
  if (api === 'openai-responses') {
    const response = typeof event.type === 'string' && isObject(event.response) ? event.response : event;
    const usage = response.usage;
    if (!isObject(usage)) return;
    const cached = isObject(usage.input_tokens_details) ? num(usage.input_tokens_details.cached_tokens) : 0;
    tally.usage = {
      input_tokens: Math.max(0, num(usage.input_tokens) - cached),
      output_tokens: num(usage.output_tokens),
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: cached,
    };
    tally.complete = true;
    return;
  }
  const metadata = event.usageMetadata;
  if (!isObject(metadata)) return;
  const cached = num(metadata.cachedContentTokenCount);
  tally.usage = {
    input_tokens: Math.max(
      0,
      num(metadata.promptTokenCount) + num(metadata.toolUsePromptTokenCount) - cached,
    ),
    output_tokens: num(metadata.candidatesTokenCount) + num(metadata.thoughtsTokenCount),
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: cached,
  };
  // Gemini's last chunk carries the final counts: complete once the stream ends.
  tally.complete = true;
}

/** A reader for an answer of `api` whose content type is `contentType`. */
export function usageReader(api: WireApi, contentType: string | undefined): UsageReader {
  const tally: Tally = { complete: false };
  const sse = contentType?.includes('text/event-stream') === true;
  const decoder = new StringDecoder('utf8');
  if (sse) {
    let partial = '';
    const line = (text: string) => {
      // Only lines that can carry a usage are parsed.
      if (!text.startsWith('data:') || !/"(?:usage|usageMetadata|message_stop)"/.test(text)) return;
      try {
        fold(api, tally, JSON.parse(text.slice(5)));
      } catch {}
    };
    return {
      push(chunk) {
        const lines = (partial + decoder.write(chunk)).split('\n');
        partial = lines.pop() ?? '';
        for (const text of lines) line(text.trimEnd());
      },
      end() {
        line((partial + decoder.end()).trimEnd());
        return tally.complete ? tally.usage : undefined;
      },
    };
  }
  let text = '';
  let over = false;
  return {
    push(chunk) {
      if (over) return;
      text += decoder.write(chunk);
      if (text.length > MAX_JSON_BYTES) over = true;
    },
    end() {
      if (over) return undefined;
      try {
        const json: unknown = JSON.parse(text + decoder.end());
        // Gemini's :streamGenerateContent without alt=sse answers its chunks as one array.
        for (const item of Array.isArray(json) ? json : [json]) fold(api, tally, item);
      } catch {
        return undefined;
      }
      return tally.complete ? tally.usage : undefined;
    },
  };
}
