/**
 * Folds the events of a streamed Messages response into the final Message, the way the API documents
 * it: text/thinking deltas are appended, tool_use input arrives as partial JSON strings parsed at
 * content_block_stop, message_delta carries the stop reason and cumulative usage. No I/O.
 */
import { type ContentBlock, type Message, type StreamEvent, ToolUseBlockSchema } from './schemas.ts';

export type AccumulatorErrorCode = 'STREAM_OUT_OF_ORDER' | 'STREAM_BAD_TOOL_JSON' | 'STREAM_ERROR_EVENT';

export type AccumulatorError = {
  code: AccumulatorErrorCode;
  message: string;
  /** Anthropic error type, for `error` events (e.g. overloaded_error). */
  errorType?: string;
};

export type ApplyOutcome =
  | { ok: true; completedBlock?: ContentBlock; completedIndex?: number }
  | { ok: false; error: AccumulatorError };

export type MessageAccumulator = {
  apply(event: StreamEvent): ApplyOutcome;
  /** The message so far (undefined before message_start). */
  snapshot(): Message | undefined;
  /** True once message_stop was seen. */
  isComplete(): boolean;
};

const fail = (code: AccumulatorErrorCode, message: string, errorType?: string): ApplyOutcome => ({
  ok: false,
  error: errorType === undefined ? { code, message } : { code, message, errorType },
});

export function createMessageAccumulator(): MessageAccumulator {
  let message: Message | undefined;
  let complete = false;
  const partialJson = new Map<number, string>();

  const apply = (event: StreamEvent): ApplyOutcome => {
    if (event.type === 'ping') return { ok: true };
    if (event.type === 'error') {
      return fail('STREAM_ERROR_EVENT', event.error.message, event.error.type);
    }
    if (event.type === 'message_start') {
      message = { ...event.message, content: [...event.message.content] };
      return { ok: true };
    }
    if (!message) return fail('STREAM_OUT_OF_ORDER', `${event.type} before message_start`);
    const current = message;

    switch (event.type) {
      case 'content_block_start': {
        current.content[event.index] = structuredClone(event.content_block);
        if (event.content_block.type === 'tool_use' || event.content_block.type === 'server_tool_use') {
          partialJson.set(event.index, '');
        }
        return { ok: true };
      }
      case 'content_block_delta': {
        const block = current.content[event.index];
        if (!block) return fail('STREAM_OUT_OF_ORDER', `delta for unknown block ${event.index}`);
        const delta = event.delta;
        if (delta.type === 'text_delta' && block.type === 'text') block.text += delta.text;
        else if (delta.type === 'thinking_delta' && block.type === 'thinking')
          block.thinking += delta.thinking;
        else if (delta.type === 'signature_delta' && block.type === 'thinking')
          block.signature = delta.signature;
        else if (delta.type === 'input_json_delta' && partialJson.has(event.index)) {
          partialJson.set(event.index, (partialJson.get(event.index) ?? '') + delta.partial_json);
        } else if (delta.type === 'citations_delta' && block.type === 'text') {
          const citations = Array.isArray(block.citations) ? block.citations : [];
          block.citations = [...citations, delta.citation];
        } else {
          return fail('STREAM_OUT_OF_ORDER', `${delta.type} does not fit a ${block.type} block`);
        }
        return { ok: true };
      }
      case 'content_block_stop': {
        const block = current.content[event.index];
        if (!block) return fail('STREAM_OUT_OF_ORDER', `stop for unknown block ${event.index}`);
        const json = partialJson.get(event.index);
        partialJson.delete(event.index);
        if (
          json !== undefined &&
          json.trim() !== '' &&
          (block.type === 'tool_use' || block.type === 'server_tool_use')
        ) {
          let input: unknown;
          try {
            input = JSON.parse(json);
          } catch {
            return fail('STREAM_BAD_TOOL_JSON', `tool input of block ${event.index} is not valid JSON`);
          }
          if (block.type === 'tool_use') {
            const parsed = ToolUseBlockSchema.shape.input.safeParse(input);
            if (!parsed.success) {
              return fail('STREAM_BAD_TOOL_JSON', `tool input of block ${event.index} is not an object`);
            }
            block.input = parsed.data;
          } else {
            block.input = input;
          }
        }
        return { ok: true, completedBlock: block, completedIndex: event.index };
      }
      case 'message_delta': {
        if (event.delta.stop_reason !== undefined) current.stop_reason = event.delta.stop_reason;
        if (event.delta.stop_sequence !== undefined) current.stop_sequence = event.delta.stop_sequence;
        if (event.usage) {
          // Counts in message_delta are cumulative: they replace, never add.
          for (const [key, value] of Object.entries(event.usage)) {
            if (value !== undefined && value !== null) current.usage[key] = value;
          }
        }
        return { ok: true };
      }
      case 'message_stop':
        complete = true;
        return { ok: true };
    }
  };

  return {
    apply,
    snapshot: () => message,
    isComplete: () => complete,
  };
}
