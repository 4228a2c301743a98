import { describe, expect, it } from 'vitest';
import { createMessageAccumulator } from '../../../src/llm/message-accumulator.ts';
import type { IdSource } from '../../../src/llm/mock-provider/ids.ts';
import {
  buildMessage,
  encodeSse,
  errorBodyOf,
  streamEventsOf,
} from '../../../src/llm/mock-provider/response-builder.ts';
import { StreamEventSchema } from '../../../src/llm/schemas.ts';
import { createSseParser } from '../../../src/llm/sse-parser.ts';

let n = 0;
const ids: IdSource = {
  messageId: () => `msg_${++n}`,
  toolUseId: () => `toolu_${++n}`,
  requestId: () => `req_${++n}`,
  signature: () => 'c2ln',
  openAiId: (prefix) => `${prefix}_${++n}`,
  callId: () => `call_${++n}`,
  geminiResponseId: () => `gr${++n}`,
};

const reply = buildMessage(
  {
    content: [
      { thinking: 'Plan: write the file.' },
      { text: 'I will create hello.txt with a greeting in it.' },
      { tool_use: { name: 'Write', input: { file_path: 'hello.txt', content: 'hi\n'.repeat(20) } } },
    ],
  },
  { model: 'claude-sonnet-4-5', inputTokens: 1234, ids },
);

describe('buildMessage', () => {
  it('builds a realistic message: ids, derived stop reason, estimated usage', () => {
    expect(reply.id).toMatch(/^msg_/);
    expect(reply.stop_reason).toBe('tool_use');
    expect(reply.content.map((block) => block.type)).toEqual(['thinking', 'text', 'tool_use']);
    expect(reply.content[2]).toMatchObject({ id: expect.stringMatching(/^toolu_/), name: 'Write' });
    expect(reply.usage).toMatchObject({ input_tokens: 1234, cache_read_input_tokens: 0 });
    expect(reply.usage.output_tokens).toBeGreaterThan(10);
  });

  it('honours scripted stop reason, tool id and usage', () => {
    const message = buildMessage(
      {
        content: [{ tool_use: { name: 'Bash', input: {}, id: 'toolu_fixed' } }],
        stopReason: 'max_tokens',
        usage: { output_tokens: 7, cache_read_input_tokens: 100 },
      },
      { model: 'm', inputTokens: 5, ids },
    );
    expect(message.stop_reason).toBe('max_tokens');
    expect(message.content[0]).toMatchObject({ id: 'toolu_fixed' });
    expect(message.usage).toMatchObject({ input_tokens: 5, output_tokens: 7, cache_read_input_tokens: 100 });
  });
});

describe("a script's usage against the request's output limit (trial 30)", () => {
  it('reports no more output than the request allowed, as a provider never bills more', () => {
    const turn = { content: [{ text: 'Long.' }], usage: { output_tokens: 1_000_000 } };
    expect(buildMessage(turn, { model: 'm', inputTokens: 5, maxOutput: 8192, ids }).usage.output_tokens).toBe(
      8192,
    );
    expect(buildMessage(turn, { model: 'm', inputTokens: 5, ids }).usage.output_tokens).toBe(1_000_000);
  });
});

describe('streamEventsOf', () => {
  it('streams events that validate and fold back into the same message, through SSE text', () => {
    const events = streamEventsOf(reply);
    expect(events.map((event) => event.type).slice(0, 3)).toEqual([
      'message_start',
      'ping',
      'content_block_start',
    ]);
    expect(events.at(-2)?.type).toBe('message_delta');
    expect(events.at(-1)?.type).toBe('message_stop');
    expect(events.filter((event) => event.type === 'content_block_delta').length).toBeGreaterThan(6);

    const wire = events.map(encodeSse).join('');
    const parser = createSseParser();
    const acc = createMessageAccumulator();
    for (let i = 0; i < wire.length; i += 17) {
      for (const sse of parser.feed(wire.slice(i, i + 17))) {
        const event = StreamEventSchema.parse(JSON.parse(sse.data));
        expect(sse.event).toBe(event.type);
        expect(acc.apply(event).ok).toBe(true);
      }
    }
    expect(acc.isComplete()).toBe(true);
    expect(acc.snapshot()).toEqual(reply);
  });
});

describe('errorBodyOf', () => {
  it('uses the API error type of the status unless the script names one', () => {
    expect(errorBodyOf({ error: { status: 529 } }, 'req_1')).toEqual({
      type: 'error',
      error: { type: 'overloaded_error', message: 'Scripted 529 overloaded_error' },
      request_id: 'req_1',
    });
    expect(errorBodyOf({ error: { status: 400, type: 'custom_error', message: 'nope' } }, 'r').error).toEqual(
      {
        type: 'custom_error',
        message: 'nope',
      },
    );
  });
});
