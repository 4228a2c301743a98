import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { AgentRun } from '../../src/agents/agent-adapter.ts';
import { CodexTranslator } from '../../src/agents/codex/codex-translator.ts';
import { geminiTranslator } from '../../src/agents/gemini/gemini-translator.ts';
import { resumeChain } from '../../src/agents/resume-chain.ts';
import type { Translator } from '../../src/agents/spawn-agent.ts';
import type { StreamLine } from '../../src/agents/stream-line.ts';
import { type MappedOutput, StreamMapper } from '../../src/engine/stream-mapper.ts';
import { costOf } from '../../src/llm/pricing.ts';

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

describe('StreamMapper over a codon.message follow-up turn by resume (trial 18 H2)', () => {
  const fixture = (agent: string, name: string) =>
    readFileSync(join(import.meta.dirname, '../agents/fixtures', agent, name), 'utf8')
      .split('\n')
      .filter((text) => text.trim() !== '');
  /** One CLI process's turn: its captured output through its own translator, as a finished run. */
  const turn = (pid: number, translator: Translator, raw: string[]): AgentRun => {
    const lines = raw.flatMap((text) => {
      const out = translator.line(text);
      return out.ok ? out.lines : [];
    });
    lines.push(...(translator.end?.() ?? []));
    return {
      pid,
      lines: (async function* () {
        yield* lines;
      })(),
      onStderr: () => {},
      onNotice: () => {},
      exited: Promise.resolve({ type: 'success' }),
      startFailure: undefined,
      send: () => false,
      inTurn: false,
      stop: async () => {},
    };
  };
  /** The codon's last token.usage after both turns of the chain, and the cost each turn's tokens are priced at alone. */
  async function chained(first: AgentRun, second: () => AgentRun) {
    const chain = resumeChain(first, () => second());
    expect(chain.send('also write msg.txt')).toBe(true);
    const mapper = new StreamMapper({ codonId: 'c', maxResultChars: 100, costReported: false });
    const outs: MappedOutput[] = [];
    for await (const line of chain.lines) outs.push(...mapper.map(line));
    const usage = outs.flatMap((o) =>
      o.kind === 'event' && o.event.type === 'token.usage' ? [o.event.data] : [],
    );
    const costs = outs.flatMap((o) => (o.kind === 'cost' ? [o.amount] : []));
    return { last: usage.at(-1), journaled: costs.reduce((a, b) => a + b, 0), mapper };
  }

  it("Codex: the second process's usage line (its ids count from 1 again) adds its cost", async () => {
    const raw = fixture('codex', 'tool-turn.jsonl');
    const one = (pid: number) => turn(pid, new CodexTranslator({ model: 'gpt-6.2-sol' }), raw);
    const { last, journaled, mapper } = await chained(one(1), () => one(2));
    // Each turn: 200 input tokens (40 of them cached) and 20 output.
    const perTurn = costOf('gpt-6.2-sol', {
      input_tokens: 160,
      cache_read_input_tokens: 40,
      output_tokens: 20,
    }).usd;
    expect(perTurn).toBeGreaterThan(0);
    expect(last).toMatchObject({ inputTokens: 320, cacheReadTokens: 80, outputTokens: 40 });
    expect(last?.totalCost).toBeCloseTo(2 * perTurn, 12);
    expect(journaled).toBeCloseTo(2 * perTurn, 12);
    expect(mapper.totalCost).toBeCloseTo(2 * perTurn, 12);
  });

  it("Gemini CLI: the second process's usage line adds its cost", async () => {
    const raw = fixture('gemini', 'stream.jsonl');
    const { last, journaled } = await chained(turn(1, geminiTranslator(), raw), () =>
      turn(2, geminiTranslator(), raw),
    );
    const perTurn = costOf('gemini-2.5-flash', { input_tokens: 35497, output_tokens: 55 }).usd;
    expect(last).toMatchObject({ inputTokens: 2 * 35497, outputTokens: 2 * 55 });
    expect(last?.totalCost).toBeCloseTo(2 * perTurn, 12);
    expect(journaled).toBeCloseTo(2 * perTurn, 12);
  });
});

describe('StreamMapper over a run that failed before any answer', () => {
  it('takes its result message from `errors` when it has no result text', () => {
    const mapper = new StreamMapper({ codonId: 'c', maxResultChars: 100 });
    const messageOf = (line: StreamLine) =>
      mapper.map(line).flatMap((out) => (out.kind === 'result' ? [out.message] : []));
    const failed = { type: 'result', subtype: 'error_during_execution', is_error: true } as const;
    expect(messageOf({ ...failed, errors: ['MCP server "a" could not start', 'and "b"'] })).toEqual([
      'MCP server "a" could not start; and "b"',
    ]);
    expect(messageOf({ ...failed, errors: [] })).toEqual(['error_during_execution']);
    expect(messageOf({ ...failed, result: 'said so', errors: ['other'] })).toEqual(['said so']);
  });
});
