/**
 * Turns a scripted reply into what the real API would send: a Message for plain JSON, or the ordered
 * SSE events of a stream (message_start, a ping, per-block start/deltas/stop, message_delta,
 * message_stop). A freeform tool call (a string input) becomes a tool_use with input
 * `{ input: "<text>" }`: the Messages API has no freeform tools. Pure, given an id source.
 */
import {
  type ApiErrorBody,
  type ContentBlock,
  errorTypeForStatus,
  type Message,
  type StreamEvent,
} from '../schemas.ts';
import type { IdSource } from './ids.ts';
import type { ErrorTurn, ReplyTurn } from './script-schema.ts';

/** Rough token count: about four characters of JSON per token, as for English text. */
export function estimateTokens(value: unknown): number {
  const text = typeof value === 'string' ? value : JSON.stringify(value ?? '');
  return Math.max(1, Math.ceil(text.length / 4));
}

/** What a request's prompt (system, messages, tool definitions) costs in input tokens, roughly. */
export function estimateInputTokens(request: {
  system?: unknown;
  messages: unknown[];
  tools?: unknown[];
}): number {
  return estimateTokens({ system: request.system, messages: request.messages, tools: request.tools });
}

/**
 * A reply's token counts: the script's `usage` (written once, in Anthropic's terms: `input_tokens`
 * excludes the cache) or estimates. Each API's builder words them its own way. Output never passes
 * the request's own limit (`maxOutput`), as a provider never bills more than it allowed.
 */
export type TurnUsage = { input: number; output: number; cacheRead: number; cacheCreation: number };

export function usageOf(turn: ReplyTurn, estimatedInput: number, maxOutput?: number): TurnUsage {
  const output = turn.usage?.output_tokens ?? estimateTokens(turn.content.map(visibleText).join(''));
  return {
    input: turn.usage?.input_tokens ?? estimatedInput,
    output: maxOutput === undefined ? output : Math.min(output, maxOutput),
    cacheRead: turn.usage?.cache_read_input_tokens ?? 0,
    cacheCreation: turn.usage?.cache_creation_input_tokens ?? 0,
  };
}

/**
 * A tool call's input as an object, for the APIs without freeform tools (Anthropic, Gemini): a
 * script's freeform input (a string, for OpenAI's custom tools) becomes `{ input: "<text>" }`.
 */
export function objectInput(input: string | Record<string, unknown>): Record<string, unknown> {
  return typeof input === 'string' ? { input } : input;
}

export function buildMessage(
  turn: ReplyTurn,
  context: { model: string; inputTokens: number; maxOutput?: number; ids: IdSource },
): Message {
  const content: ContentBlock[] = turn.content.map((block): ContentBlock => {
    if ('text' in block) return { type: 'text', text: block.text };
    if ('thinking' in block) {
      return {
        type: 'thinking',
        thinking: block.thinking,
        signature: block.signature ?? context.ids.signature(),
      };
    }
    const { name, input, id } = block.tool_use;
    return { type: 'tool_use', id: id ?? context.ids.toolUseId(), name, input: objectInput(input) };
  });
  const hasToolUse = content.some((block) => block.type === 'tool_use');
  const usage = usageOf(turn, context.inputTokens, context.maxOutput);
  return {
    id: context.ids.messageId(),
    type: 'message',
    role: 'assistant',
    model: context.model,
    content,
    stop_reason: turn.stopReason ?? (hasToolUse ? 'tool_use' : 'end_turn'),
    stop_sequence: null,
    usage: {
      input_tokens: usage.input,
      cache_creation_input_tokens: usage.cacheCreation,
      cache_read_input_tokens: usage.cacheRead,
      output_tokens: usage.output,
      service_tier: 'standard',
    },
  };
}

function visibleText(block: ReplyTurn['content'][number]): string {
  if ('text' in block) return block.text;
  if ('thinking' in block) return block.thinking;
  const { name, input } = block.tool_use;
  return name + (typeof input === 'string' ? input : JSON.stringify(input));
}

const PIECE = 24;

/** Text cut into the small pieces a stream sends as deltas. */
export function pieces(text: string): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += PIECE) out.push(text.slice(i, i + PIECE));
  return out;
}

export function streamEventsOf(message: Message): StreamEvent[] {
  const { input_tokens, cache_creation_input_tokens, cache_read_input_tokens, output_tokens } = message.usage;
  const events: StreamEvent[] = [
    {
      type: 'message_start',
      message: {
        ...message,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { ...message.usage, output_tokens: Math.min(1, output_tokens) },
      },
    },
    { type: 'ping' },
  ];
  message.content.forEach((block, index) => {
    events.push({ type: 'content_block_start', index, content_block: emptied(block) });
    for (const delta of deltasOf(block)) events.push({ type: 'content_block_delta', index, delta });
    events.push({ type: 'content_block_stop', index });
  });
  events.push(
    {
      type: 'message_delta',
      delta: { stop_reason: message.stop_reason, stop_sequence: message.stop_sequence ?? null },
      usage: { input_tokens, cache_creation_input_tokens, cache_read_input_tokens, output_tokens },
    },
    { type: 'message_stop' },
  );
  return events;
}

function emptied(block: ContentBlock): ContentBlock {
  switch (block.type) {
    case 'text':
      return { type: 'text', text: '' };
    case 'thinking':
      return { type: 'thinking', thinking: '', signature: '' };
    case 'tool_use':
      return { type: 'tool_use', id: block.id, name: block.name, input: {} };
    default:
      return block;
  }
}

type Delta = Extract<StreamEvent, { type: 'content_block_delta' }>['delta'];

function deltasOf(block: ContentBlock): Delta[] {
  switch (block.type) {
    case 'text':
      return pieces(block.text).map((text) => ({ type: 'text_delta', text }));
    case 'thinking': {
      const deltas: Delta[] = pieces(block.thinking).map((thinking) => ({
        type: 'thinking_delta',
        thinking,
      }));
      if (block.signature) deltas.push({ type: 'signature_delta', signature: block.signature });
      return deltas;
    }
    case 'tool_use':
      // The API opens with an empty fragment before the JSON pieces.
      return ['', ...pieces(JSON.stringify(block.input))].map((partial_json) => ({
        type: 'input_json_delta',
        partial_json,
      }));
    default:
      return [];
  }
}

export function encodeSse(event: StreamEvent): string {
  return `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`;
}

export function errorBodyOf(turn: ErrorTurn, requestId: string): ApiErrorBody {
  const { status } = turn.error;
  const type = turn.error.type ?? errorTypeForStatus(status);
  return {
    type: 'error',
    error: { type, message: turn.error.message ?? `Scripted ${status} ${type}` },
    request_id: requestId,
  };
}

export function apiError(type: string, message: string): ApiErrorBody {
  return { type: 'error', error: { type, message } };
}
