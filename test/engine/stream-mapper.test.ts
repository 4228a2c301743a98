import { describe, expect, it } from 'vitest';
import type { StreamLine } from '../../src/agents/stream-line.ts';
import { StreamMapper } from '../../src/engine/stream-mapper.ts';

const result = (input: number, output: number, cost: number): StreamLine => ({
  type: 'result',
  subtype: 'success',
  is_error: false,
  total_cost_usd: cost,
  usage: { input_tokens: input, output_tokens: output },
});

describe('StreamMapper over an agent that ran several turns (messages sent to it)', () => {
  it("adds each turn's usage up and keeps the process's cost as the agent reports it", () => {
    const mapper = new StreamMapper({ codonId: 'c', maxResultChars: 100 });
    const usage = (line: StreamLine) =>
      mapper
        .map(line)
        .flatMap((out) => (out.kind === 'event' && out.event.type === 'token.usage' ? [out.event.data] : []));
    expect(usage(result(100, 10, 0.5))).toMatchObject([
      { inputTokens: 100, outputTokens: 10, totalCost: 0.5 },
    ]);
    // Claude Code's second result: usage of that turn alone, total_cost_usd of the whole process.
    expect(usage(result(40, 4, 0.7))).toMatchObject([{ inputTokens: 140, outputTokens: 14, totalCost: 0.7 }]);
    expect(mapper.totalCost).toBe(0.7);
  });
});

describe('StreamMapper over an agent that reports no cost (Codex, Gemini, opencode)', () => {
  it('prices each response from the table and marks every token.usage costEstimated', () => {
    const mapper = new StreamMapper({ codonId: 'c', maxResultChars: 100, costReported: false });
    const usage = (line: StreamLine) =>
      mapper
        .map(line)
        .flatMap((out) => (out.kind === 'event' && out.event.type === 'token.usage' ? [out.event.data] : []));
    const response: StreamLine = {
      type: 'assistant',
      message: {
        id: 'r1',
        model: 'claude-sonnet-4-5',
        content: [{ type: 'text', text: 'done' }],
        usage: { input_tokens: 1_000_000, output_tokens: 0 },
      },
    };
    // Counted as the response comes (trial 17b L9), priced from the table.
    expect(usage(response)).toMatchObject([{ inputTokens: 1_000_000, totalCost: 3, costEstimated: true }]);
    const [last] = usage({
      type: 'result',
      subtype: 'success',
      is_error: false,
      usage: { input_tokens: 1_000_000, output_tokens: 0 },
    }).slice(-1);
    // A million input tokens of Sonnet 4.5 at $3 per million, from the table.
    expect(last).toMatchObject({ inputTokens: 1_000_000, totalCost: 3, costEstimated: true });
    expect(mapper.totalCost).toBe(3);
  });

  it('leaves costEstimated off for an agent that reports its cost', () => {
    const mapper = new StreamMapper({ codonId: 'c', maxResultChars: 100 });
    const events = mapper.map(result(1, 1, 0.01));
    expect(events.some((out) => out.kind === 'event' && 'costEstimated' in out.event.data)).toBe(false);
  });
});

describe('StreamMapper counts a message as its first line shows it (trial 17b L9)', () => {
  const line = (
    id: string,
    usage: { input_tokens: number; output_tokens: number },
    text = 'x',
  ): StreamLine => ({
    type: 'assistant',
    message: { id, model: 'claude-sonnet-4-5', content: [{ type: 'text', text }], usage },
  });
  const kinds = (outs: ReturnType<StreamMapper['map']>) =>
    outs.map((o) => (o.kind === 'event' ? o.event.type : o.kind === 'cost' ? `cost ${o.amount}` : o.kind));

  it('before the tool it asks for runs; a later line of it adds only what it shows beyond', () => {
    const mapper = new StreamMapper({ codonId: 'c', maxResultChars: 100 });
    // A million input tokens at $3: journaled with the message, not after its tool's result.
    expect(kinds(mapper.map(line('m1', { input_tokens: 1_000_000, output_tokens: 0 })))).toEqual([
      'token.usage',
      'cost 3',
      'messageCount',
      'assistant.action',
    ]);
    expect(mapper.totalCost).toBe(3);
    // The same usage on the message's next block: nothing more.
    expect(kinds(mapper.map(line('m1', { input_tokens: 1_000_000, output_tokens: 0 })))).toEqual([
      'assistant.action',
    ]);
    // More output on a later block: only the difference (100 000 output tokens at $15 a million).
    const more = mapper.map(line('m1', { input_tokens: 1_000_000, output_tokens: 100_000 }));
    expect(kinds(more)).toEqual(['token.usage', 'cost 1.5', 'assistant.action']);
    expect(mapper.totalCost).toBe(4.5);
    // The next message counts anew; the end leaves nothing behind.
    expect(kinds(mapper.map(line('m2', { input_tokens: 10, output_tokens: 0 })))[0]).toBe('token.usage');
    expect(mapper.finish()).toEqual([]);
  });
});
