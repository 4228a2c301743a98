import { describe, expect, it } from 'vitest';
import { createMessageAccumulator } from '../../src/llm/message-accumulator.ts';
import type { StreamEvent } from '../../src/llm/schemas.ts';

const start: StreamEvent = {
  type: 'message_start',
  message: {
    id: 'msg_1',
    type: 'message',
    role: 'assistant',
    model: 'claude-sonnet-4-5',
    content: [],
    stop_reason: null,
    stop_sequence: null,
    usage: { input_tokens: 10, output_tokens: 1 },
  },
};

describe('createMessageAccumulator', () => {
  it('folds text, thinking and tool_use deltas into the final message', () => {
    const acc = createMessageAccumulator();
    const events: StreamEvent[] = [
      start,
      { type: 'ping' },
      {
        type: 'content_block_start',
        index: 0,
        content_block: { type: 'thinking', thinking: '', signature: '' },
      },
      { type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: 'Let me ' } },
      { type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: 'think.' } },
      { type: 'content_block_delta', index: 0, delta: { type: 'signature_delta', signature: 'sig' } },
      { type: 'content_block_stop', index: 0 },
      { type: 'content_block_start', index: 1, content_block: { type: 'text', text: '' } },
      { type: 'content_block_delta', index: 1, delta: { type: 'text_delta', text: 'Hel' } },
      { type: 'content_block_delta', index: 1, delta: { type: 'text_delta', text: 'lo' } },
      { type: 'content_block_stop', index: 1 },
      {
        type: 'content_block_start',
        index: 2,
        content_block: { type: 'tool_use', id: 'toolu_1', name: 'Write', input: {} },
      },
      { type: 'content_block_delta', index: 2, delta: { type: 'input_json_delta', partial_json: '' } },
      {
        type: 'content_block_delta',
        index: 2,
        delta: { type: 'input_json_delta', partial_json: '{"file_path":"a.t' },
      },
      {
        type: 'content_block_delta',
        index: 2,
        delta: { type: 'input_json_delta', partial_json: 'xt","content":"hi"}' },
      },
      { type: 'content_block_stop', index: 2 },
      {
        type: 'message_delta',
        delta: { stop_reason: 'tool_use', stop_sequence: null },
        usage: { output_tokens: 42 },
      },
      { type: 'message_stop' },
    ];
    const completed: string[] = [];
    for (const event of events) {
      const outcome = acc.apply(event);
      expect(outcome.ok).toBe(true);
      if (outcome.ok && outcome.completedBlock) completed.push(outcome.completedBlock.type);
    }
    expect(completed).toEqual(['thinking', 'text', 'tool_use']);
    expect(acc.isComplete()).toBe(true);
    expect(acc.snapshot()).toEqual({
      ...start.message,
      content: [
        { type: 'thinking', thinking: 'Let me think.', signature: 'sig' },
        { type: 'text', text: 'Hello' },
        { type: 'tool_use', id: 'toolu_1', name: 'Write', input: { file_path: 'a.txt', content: 'hi' } },
      ],
      stop_reason: 'tool_use',
      stop_sequence: null,
      usage: { input_tokens: 10, output_tokens: 42 },
    });
  });

  it('keeps a tool_use with no input deltas as {}', () => {
    const acc = createMessageAccumulator();
    acc.apply(start);
    acc.apply({
      type: 'content_block_start',
      index: 0,
      content_block: { type: 'tool_use', id: 't', name: 'Glob', input: {} },
    });
    const outcome = acc.apply({ type: 'content_block_stop', index: 0 });
    expect(outcome).toMatchObject({ ok: true, completedBlock: { input: {} } });
  });

  it('reports events out of order, bad tool JSON and error events as error values', () => {
    expect(createMessageAccumulator().apply({ type: 'message_stop' })).toMatchObject({
      ok: false,
      error: { code: 'STREAM_OUT_OF_ORDER' },
    });

    const acc = createMessageAccumulator();
    acc.apply(start);
    expect(
      acc.apply({ type: 'content_block_delta', index: 3, delta: { type: 'text_delta', text: 'x' } }),
    ).toMatchObject({
      ok: false,
      error: { code: 'STREAM_OUT_OF_ORDER' },
    });
    acc.apply({
      type: 'content_block_start',
      index: 0,
      content_block: { type: 'tool_use', id: 't', name: 'W', input: {} },
    });
    acc.apply({
      type: 'content_block_delta',
      index: 0,
      delta: { type: 'input_json_delta', partial_json: '{"a":' },
    });
    expect(acc.apply({ type: 'content_block_stop', index: 0 })).toMatchObject({
      ok: false,
      error: { code: 'STREAM_BAD_TOOL_JSON' },
    });

    expect(acc.apply({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } })).toEqual({
      ok: false,
      error: { code: 'STREAM_ERROR_EVENT', message: 'Overloaded', errorType: 'overloaded_error' },
    });
  });

  it('replaces usage with the cumulative counts of message_delta', () => {
    const acc = createMessageAccumulator();
    acc.apply(start);
    acc.apply({
      type: 'message_delta',
      delta: {},
      usage: { input_tokens: 12, output_tokens: 5, cache_read_input_tokens: 3 },
    });
    acc.apply({ type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 9 } });
    expect(acc.snapshot()?.usage).toEqual({ input_tokens: 12, output_tokens: 9, cache_read_input_tokens: 3 });
    expect(acc.snapshot()?.stop_reason).toBe('end_turn');
  });
});
