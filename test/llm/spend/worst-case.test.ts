import { describe, expect, it } from 'vitest';
import { usageReader } from '../../../src/llm/spend/response-usage.ts';
import { admit, type SpendGate } from '../../../src/llm/spend/spend-gate.ts';
import {
  callOf,
  cappedBody,
  decide,
  MIN_OUTPUT_TOKENS,
  PROVIDER_ALLOWANCE_TOKENS,
  type PricedCall,
} from '../../../src/llm/spend/worst-case.ts';

const body = (json: object) => Buffer.from(JSON.stringify(json));

// Sonnet 4.5: input $3 (cache writes $3.75, the dearest), output $15 per million tokens.
const anthropic = body({
  model: 'claude-sonnet-4-5',
  max_tokens: 32_000,
  messages: [{ role: 'user', content: 'héllo' }],
});
// gpt-6.2-sol: input $2 (cache writes $2.50), output $10.
const responses = body({ model: 'gpt-6.2-sol', input: 'hello', max_output_tokens: 20_000 });
// gemini-2.5-pro: input $1.25, output $10.
const gemini = body({ contents: [{ role: 'user', parts: [{ text: 'hello' }] }] });

const call = (method: string, url: string, bytes: Buffer): PricedCall => {
  const priced = callOf(method, url, bytes);
  if (!priced) throw new Error(`no call for ${url}`);
  return priced;
};

describe('the worst case of a request', () => {
  it('reads model, output limit and an input bound of bytes plus the allowance, for the three APIs', () => {
    const a = call('POST', '/v1/messages?beta=true', anthropic);
    expect(a).toMatchObject({ api: 'anthropic', model: 'claude-sonnet-4-5', maxOutput: 32_000 });
    // UTF-8 bytes, not characters: é is two.
    expect(a.inputBound).toBe(anthropic.length + PROVIDER_ALLOWANCE_TOKENS);
    expect(anthropic.length).toBe(JSON.stringify(JSON.parse(anthropic.toString())).length + 1);
    expect(call('POST', '/p/0/v1/responses', responses)).toMatchObject({
      api: 'openai-responses',
      model: 'gpt-6.2-sol',
      maxOutput: 20_000,
    });
    expect(call('POST', '/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse', gemini)).toMatchObject(
      { api: 'gemini', model: 'gemini-2.5-pro', maxOutput: undefined },
    );
  });

  it('leaves other requests alone: token counts, GETs, bodies that are not JSON', () => {
    expect(callOf('POST', '/v1/messages/count_tokens', anthropic)).toBeUndefined();
    expect(callOf('GET', '/v1/models', Buffer.alloc(0))).toBeUndefined();
    expect(callOf('POST', '/v1/messages', Buffer.from('not json'))).toBeUndefined();
    expect(callOf('POST', '/v1beta/models/gemini-2.5-pro:countTokens', gemini)).toBeUndefined();
  });

  it('forwards what fits, priced with input at the dearest input rate and the output asked for', () => {
    const a = call('POST', '/v1/messages', anthropic);
    const worst = (a.inputBound * 3.75 + 32_000 * 15) / 1e6;
    const decision = decide(a, worst + 1e-12);
    expect(decision.kind).toBe('forward');
    expect(decision.kind === 'forward' && decision.worstUsd).toBeCloseTo(worst, 12);
    expect(decide(a, worst - 1e-6).kind).toBe('cap');
  });

  it("without an output limit the model's maximum is the worst case (Gemini 2.5 Pro: 65,536)", () => {
    const g = call('POST', '/v1beta/models/gemini-2.5-pro:generateContent', gemini);
    const worst = (g.inputBound * 1.25 + 65_536 * 10) / 1e6;
    expect(decide(g, worst + 1e-12).kind).toBe('forward');
    expect(decide(g, worst - 1e-6).kind).toBe('cap');
  });

  it('caps the output limit to what the room pays for, down to the least output, then refuses', () => {
    const r = call('POST', '/v1/responses', responses);
    const input = (r.inputBound * 2.5) / 1e6;
    expect(decide(r, input + 5_000 * 10e-6)).toMatchObject({ kind: 'cap', maxOutput: 5_000 });
    const least = input + MIN_OUTPUT_TOKENS * 10e-6;
    expect(decide(r, least)).toMatchObject({ kind: 'cap', maxOutput: MIN_OUTPUT_TOKENS });
    expect(decide(r, least - 1e-6)).toEqual({ kind: 'refuse', leastUsd: least });
  });

  it('writes the capped limit into each API, keeping a thinking budget under it', () => {
    const thinking = call(
      'POST',
      '/v1/messages',
      body({
        model: 'claude-sonnet-4-5',
        max_tokens: 32_000,
        thinking: { type: 'enabled', budget_tokens: 16_000 },
        messages: [],
      }),
    );
    expect(JSON.parse(cappedBody(thinking, 4_000).toString())).toMatchObject({
      max_tokens: 4_000,
      thinking: { type: 'enabled', budget_tokens: 3_999 },
      messages: [],
    });
    // Extended thinking needs 1,024 under max_tokens: the least cap is one more.
    const input = (thinking.inputBound * 3.75) / 1e6;
    expect(decide(thinking, input + 1_024 * 15e-6).kind).toBe('refuse');
    const r = call('POST', '/v1/responses', responses);
    expect(JSON.parse(cappedBody(r, 2_000).toString())).toMatchObject({
      input: 'hello',
      max_output_tokens: 2_000,
    });
    const g = call(
      'POST',
      '/v1beta/models/gemini-2.5-pro:generateContent',
      body({ contents: [], generationConfig: { temperature: 0 } }),
    );
    expect(JSON.parse(cappedBody(g, 3_000).toString())).toEqual({
      contents: [],
      generationConfig: { temperature: 0, maxOutputTokens: 3_000 },
    });
  });

  it('does not check a model without a price', () => {
    const unknown = call('POST', '/v1/messages', body({ model: 'llama-9', max_tokens: 10, messages: [] }));
    expect(decide(unknown, 0)).toEqual({ kind: 'unpriced' });
  });
});

describe('admit: room, decision and hold in one step', () => {
  function gate(room: number | undefined) {
    const held: number[] = [];
    const g: SpendGate = {
      room: () => (room === undefined ? undefined : room - held.reduce((a, b) => a + b, 0)),
      hold: (usd) => {
        held.push(usd);
        return { settle: () => {} };
      },
      refuse: (least) => `refused at ${least.toFixed(4)}`,
    };
    return { g, held };
  }

  it('two requests at once do not both get the same money', () => {
    const a = call('POST', '/v1/messages', anthropic);
    const worst = (a.inputBound * 3.75 + 32_000 * 15) / 1e6;
    const { g, held } = gate(worst * 1.5);
    expect(admit(g, a)).toMatchObject({ kind: 'forward' });
    const second = admit(g, a);
    expect(second.kind).toBe('forward');
    // The second one fits only capped, in what the first left.
    expect(second.kind === 'forward' && second.maxOutput).toBeLessThan(32_000);
    expect(held.reduce((x, y) => x + y, 0)).toBeLessThanOrEqual(worst * 1.5 + 1e-12);
    expect(admit(g, a)).toMatchObject({ kind: 'refuse', message: expect.stringMatching(/^refused at/) });
  });

  it('without a cost limit nothing is held', () => {
    const { g, held } = gate(undefined);
    expect(admit(g, call('POST', '/v1/messages', anthropic))).toEqual({ kind: 'free' });
    expect(held).toEqual([]);
  });
});

describe('the usage of an answer, read as it is relayed', () => {
  const feed = (api: Parameters<typeof usageReader>[0], type: string, text: string, split = 7) => {
    const reader = usageReader(api, type);
    const bytes = Buffer.from(text);
    for (let i = 0; i < bytes.length; i += split) reader.push(bytes.subarray(i, i + split));
    return reader.end();
  };
  const sse = (events: object[]) => events.map((e) => `event: x\ndata: ${JSON.stringify(e)}\n\n`).join('');

  it('Anthropic: message_start and message_delta, complete at message_stop', () => {
    const events = [
      {
        type: 'message_start',
        message: { usage: { input_tokens: 10, cache_read_input_tokens: 5, output_tokens: 1 } },
      },
      { type: 'content_block_delta', delta: { type: 'text_delta', text: 'hi' } },
      { type: 'message_delta', usage: { output_tokens: 300 } },
    ];
    expect(feed('anthropic', 'text/event-stream', sse([...events, { type: 'message_stop' }]))).toEqual({
      input_tokens: 10,
      output_tokens: 300,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 5,
    });
    // Cut before its end: unknown, so the worst case stays held.
    expect(feed('anthropic', 'text/event-stream', sse(events))).toBeUndefined();
    expect(
      feed(
        'anthropic',
        'application/json',
        JSON.stringify({ type: 'message', usage: { input_tokens: 3, output_tokens: 4 } }),
      ),
    ).toMatchObject({ input_tokens: 3, output_tokens: 4 });
  });

  it('OpenAI Responses: response.completed, cached input apart', () => {
    const done = {
      type: 'response.completed',
      response: {
        usage: { input_tokens: 100, input_tokens_details: { cached_tokens: 60 }, output_tokens: 20 },
      },
    };
    expect(
      feed('openai-responses', 'text/event-stream', sse([{ type: 'response.created', response: {} }, done])),
    ).toEqual({
      input_tokens: 40,
      output_tokens: 20,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 60,
    });
  });

  it('Gemini: the last usageMetadata, thoughts counted as output, SSE or a JSON array', () => {
    const chunks = [
      { candidates: [] },
      {
        usageMetadata: {
          promptTokenCount: 50,
          cachedContentTokenCount: 10,
          candidatesTokenCount: 7,
          thoughtsTokenCount: 3,
        },
      },
    ];
    const usage = {
      input_tokens: 40,
      output_tokens: 10,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 10,
    };
    expect(
      feed('gemini', 'text/event-stream', chunks.map((c) => `data: ${JSON.stringify(c)}\r\n\r\n`).join('')),
    ).toEqual(usage);
    expect(feed('gemini', 'application/json', JSON.stringify(chunks))).toEqual(usage);
  });
});
