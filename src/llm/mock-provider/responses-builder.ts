/**
 * Turns a scripted reply into what the OpenAI Responses API would send: a Response object for plain
 * JSON, or the ordered SSE events of a stream (response.created, response.in_progress, per output
 * item `output_item.added`, its deltas and `.done`, then response.completed). Text blocks become
 * message items with output_text, tool_use blocks function_call items (`arguments` is a JSON
 * string, `namespace` when the block names one) or, when the script's input is a string, custom_tool_call items (a freeform tool's call,
 * as Codex's apply_patch: `input` is that text), thinking blocks reasoning items with a summary.
 * Pure, given an id source and a clock value.
 */
import type { IdSource } from './ids.ts';
import { pieces, usageOf } from './response-builder.ts';
import type { ErrorTurn, ReplyTurn } from './script-schema.ts';

type OutputText = { type: 'output_text'; text: string; annotations: [] };
type SummaryText = { type: 'summary_text'; text: string };
export type ResponseItem =
  | { type: 'message'; id: string; status: 'completed'; role: 'assistant'; content: OutputText[] }
  | {
      type: 'function_call';
      id: string;
      status: 'completed';
      call_id: string;
      name: string;
      /** The namespace a namespaced function belongs to (Codex's MCP tools: `mcp__<server>`). */
      namespace?: string;
      arguments: string;
    }
  | {
      type: 'custom_tool_call';
      id: string;
      status: 'completed';
      call_id: string;
      name: string;
      input: string;
    }
  | { type: 'reasoning'; id: string; summary: SummaryText[] };

export type ResponsesUsage = {
  input_tokens: number;
  input_tokens_details: { cached_tokens: number };
  output_tokens: number;
  output_tokens_details: { reasoning_tokens: number };
  total_tokens: number;
};

export type ResponseObject = {
  id: string;
  object: 'response';
  created_at: number;
  status: 'in_progress' | 'completed' | 'incomplete' | 'failed';
  model: string;
  output: ResponseItem[];
  usage: ResponsesUsage | null;
  error: { code: string; message: string } | null;
  incomplete_details: { reason: string } | null;
};

export type ResponsesEvent = { type: string; sequence_number: number } & Record<string, unknown>;

export type ResponsesContext = {
  model: string;
  inputTokens: number;
  maxOutput?: number;
  ids: IdSource;
  createdAt: number;
};

function shell(context: ResponsesContext): ResponseObject {
  return {
    id: context.ids.openAiId('resp'),
    object: 'response',
    created_at: context.createdAt,
    status: 'in_progress',
    model: context.model,
    output: [],
    usage: null,
    error: null,
    incomplete_details: null,
  };
}

export function buildResponse(turn: ReplyTurn, context: ResponsesContext): ResponseObject {
  const { ids } = context;
  const output = turn.content.map((block): ResponseItem => {
    if ('text' in block) {
      const content: OutputText[] = [{ type: 'output_text', text: block.text, annotations: [] }];
      return { type: 'message', id: ids.openAiId('msg'), status: 'completed', role: 'assistant', content };
    }
    if ('thinking' in block) {
      return {
        type: 'reasoning',
        id: ids.openAiId('rs'),
        summary: [{ type: 'summary_text', text: block.thinking }],
      };
    }
    const { name, input, id, namespace } = block.tool_use;
    if (typeof input === 'string') {
      return {
        type: 'custom_tool_call',
        id: ids.openAiId('ctc'),
        status: 'completed',
        call_id: id ?? ids.callId(),
        name,
        input,
      };
    }
    return {
      type: 'function_call',
      id: ids.openAiId('fc'),
      status: 'completed',
      call_id: id ?? ids.callId(),
      name,
      ...(namespace ? { namespace } : {}),
      arguments: JSON.stringify(input),
    };
  });
  const usage = usageOf(turn, context.inputTokens, context.maxOutput);
  // OpenAI counts cached tokens inside input_tokens; the script's input_tokens leaves them out.
  const input = usage.input + usage.cacheRead + usage.cacheCreation;
  const truncated = turn.stopReason === 'max_tokens';
  return {
    ...shell(context),
    status: truncated ? 'incomplete' : 'completed',
    output,
    usage: {
      input_tokens: input,
      input_tokens_details: { cached_tokens: usage.cacheRead },
      output_tokens: usage.output,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: input + usage.output,
    },
    incomplete_details: truncated ? { reason: 'max_output_tokens' } : null,
  };
}

type Unnumbered = { type: string } & Record<string, unknown>;

/**
 * A tool call's events: the item added with its one text field (a function's `arguments`, a freeform
 * tool's `input`) empty, that text in `<events>.delta` pieces, `<events>.done` with all of it, the item done.
 */
function toolCallEvents<F extends 'arguments' | 'input'>(
  item: { id: string } & Record<F, string>,
  output_index: number,
  field: F,
  events: string,
): Unnumbered[] {
  const at = { item_id: item.id, output_index };
  const text = item[field];
  return [
    {
      type: 'response.output_item.added',
      output_index,
      item: { ...item, status: 'in_progress', [field]: '' },
    },
    ...pieces(text).map((delta) => ({ type: `${events}.delta`, ...at, delta })),
    { type: `${events}.done`, ...at, [field]: text },
    { type: 'response.output_item.done', output_index, item },
  ];
}

function itemEvents(item: ResponseItem, output_index: number): Unnumbered[] {
  const at = { item_id: item.id, output_index };
  switch (item.type) {
    case 'message': {
      const part = item.content[0] ?? { type: 'output_text', text: '', annotations: [] };
      const where = { ...at, content_index: 0 };
      return [
        {
          type: 'response.output_item.added',
          output_index,
          item: { ...item, status: 'in_progress', content: [] },
        },
        { type: 'response.content_part.added', ...where, part: { ...part, text: '' } },
        ...pieces(part.text).map((delta) => ({ type: 'response.output_text.delta', ...where, delta })),
        { type: 'response.output_text.done', ...where, text: part.text },
        { type: 'response.content_part.done', ...where, part },
        { type: 'response.output_item.done', output_index, item },
      ];
    }
    case 'function_call':
      return toolCallEvents(item, output_index, 'arguments', 'response.function_call_arguments');
    case 'custom_tool_call':
      return toolCallEvents(item, output_index, 'input', 'response.custom_tool_call_input');
    case 'reasoning': {
      const part = item.summary[0] ?? { type: 'summary_text', text: '' };
      const where = { ...at, summary_index: 0 };
      return [
        { type: 'response.output_item.added', output_index, item: { ...item, summary: [] } },
        { type: 'response.reasoning_summary_part.added', ...where, part: { ...part, text: '' } },
        ...pieces(part.text).map((delta) => ({
          type: 'response.reasoning_summary_text.delta',
          ...where,
          delta,
        })),
        { type: 'response.reasoning_summary_text.done', ...where, text: part.text },
        { type: 'response.reasoning_summary_part.done', ...where, part },
        { type: 'response.output_item.done', output_index, item },
      ];
    }
  }
}

const numbered = (events: Unnumbered[]): ResponsesEvent[] =>
  events.map((event, sequence_number) => ({ ...event, sequence_number }));

function opening(response: ResponseObject): Unnumbered[] {
  const started = { ...response, status: 'in_progress', output: [], usage: null, incomplete_details: null };
  return [
    { type: 'response.created', response: started },
    { type: 'response.in_progress', response: started },
  ];
}

export function responseEventsOf(response: ResponseObject): ResponsesEvent[] {
  const ending = response.status === 'incomplete' ? 'response.incomplete' : 'response.completed';
  return numbered([...opening(response), ...response.output.flatMap(itemEvents), { type: ending, response }]);
}

/** OpenAI's default error type and code for a status; the script's `type` replaces both. */
function kindOf(turn: ErrorTurn): { type: string; code: string | null } {
  const { status, type } = turn.error;
  if (type) return { type, code: type };
  if (status === 429) return { type: 'requests', code: 'rate_limit_exceeded' };
  if (status === 401) return { type: 'invalid_request_error', code: 'invalid_api_key' };
  if (status >= 500) return { type: 'server_error', code: 'server_error' };
  return { type: 'invalid_request_error', code: null };
}

/** The default message says when to retry in the words Codex parses ("try again in 2s"). */
function messageOf(turn: ErrorTurn, type: string): string {
  const { status, message, retryAfter } = turn.error;
  if (message !== undefined) return message;
  const retry = retryAfter === undefined ? '' : ` Please try again in ${retryAfter}s.`;
  return `Scripted ${status} ${type}.${retry}`;
}

export type OpenAiErrorBody = {
  error: { message: string; type: string; param: string | null; code: string | null };
};

export function openAiError(
  message: string,
  type = 'invalid_request_error',
  code: string | null = null,
  param: string | null = null,
): OpenAiErrorBody {
  return { error: { message, type, param, code } };
}

export function responsesErrorBodyOf(turn: ErrorTurn): OpenAiErrorBody {
  const { type, code } = kindOf(turn);
  return openAiError(messageOf(turn, code ?? type), type, code);
}

/** A stream that starts and then fails: response.created, response.in_progress, response.failed. */
export function responsesFailureEventsOf(turn: ErrorTurn, context: ResponsesContext): ResponsesEvent[] {
  const { type, code } = kindOf(turn);
  const response = shell(context);
  const failed: ResponseObject = {
    ...response,
    status: 'failed',
    error: { code: code ?? type, message: messageOf(turn, code ?? type) },
  };
  return numbered([...opening(response), { type: 'response.failed', response: failed }]);
}

export function encodeResponsesSse(event: ResponsesEvent): string {
  return `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`;
}
