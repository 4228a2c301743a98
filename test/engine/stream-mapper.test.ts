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
