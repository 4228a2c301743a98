import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LazyVendor } from '../../../src/llm/proxy/lazy-vendor.ts';
import { parseVendorRequest } from '../../../src/llm/proxy/vendor-request.ts';
import { scanVendorSummary, summarizeVendorRequest } from '../../../src/llm/proxy/vendor-summary.ts';

const bytes = (text: string) => Buffer.from(text);

/** What the exact parse says, the way LoggingMiddleware logs it. */
function parsedSummary(body: Buffer) {
  const parsed = parseVendorRequest(body);
  return parsed ? summarizeVendorRequest(parsed) : undefined;
}

const text = fc.string({ unit: 'binary', maxLength: 12 });
const block = fc.record({ type: text, text }, { requiredKeys: ['type'] });
const anyJson = fc.jsonValue({ maxDepth: 3 });
/** Mostly what parseVendorRequest takes, sometimes what it refuses. */
const mostly = (good: fc.Arbitrary<unknown>, ...bad: fc.Arbitrary<unknown>[]): fc.Arbitrary<unknown> =>
  fc.oneof({ arbitrary: good, weight: 12 }, ...bad.map((arbitrary) => ({ arbitrary, weight: 1 })));
const message = fc.record(
  {
    role: mostly(fc.constantFrom('user', 'assistant'), fc.constantFrom('system', 'tool')),
    content: mostly(fc.oneof(text, fc.array(block, { maxLength: 3 })), fc.integer()),
    extra: anyJson,
  },
  { requiredKeys: ['role', 'content'] },
);
const request = fc.record(
  {
    model: mostly(fc.string({ unit: 'binary', minLength: 1, maxLength: 12 }), fc.constant(''), fc.integer()),
    messages: mostly(fc.array(message, { maxLength: 4 }), text),
    max_tokens: mostly(
      fc.nat(),
      fc.integer({ max: -1 }),
      fc.double({ noNaN: true, noDefaultInfinity: true }),
      text,
    ),
    stream: mostly(fc.boolean(), fc.constant(null), text),
    system: mostly(fc.oneof(text, fc.array(block, { maxLength: 2 })), fc.integer(), fc.constant(null)),
    tools: mostly(fc.array(fc.record({ name: text, input_schema: anyJson }), { maxLength: 2 }), text),
    tool_choice: mostly(fc.record({ type: text }), text),
    thinking: mostly(fc.record({ type: text, budget_tokens: fc.nat() }), fc.boolean()),
    metadata: mostly(fc.record({ user_id: text }), fc.integer()),
    stop_sequences: mostly(fc.array(text, { maxLength: 2 }), text),
    temperature: mostly(fc.double({ noNaN: true, noDefaultInfinity: true }), text),
    top_k: mostly(fc.integer(), fc.constant(null)),
    unknown_field: anyJson,
  },
  { requiredKeys: ['model', 'messages'] },
);

describe('scanVendorSummary', () => {
  it('says what the exact parse says of any body JSON.stringify writes', () => {
    let parses = 0;
    fc.assert(
      fc.property(request, fc.constantFrom(undefined, 0, 2, '\t'), (value, indent) => {
        const body = bytes(JSON.stringify(value, null, indent));
        const parsed = parsedSummary(body);
        if (parsed) parses += 1;
        // The same summary, or the same "no Messages request"; never unsure of a body that parses.
        expect(scanVendorSummary(body)).toEqual(parsed);
      }),
      { numRuns: 1000 },
    );
    // Both kinds of body were tried, plenty of each.
    expect(parses).toBeGreaterThan(100);
    expect(parses).toBeLessThan(900);
  });

  it('reads escaped keys and strings, repeated keys (the last wins) and any whitespace', () => {
    const body = ` \n{"mod\\u0065l":"first","model":"cl\\"au\\\\de","messages":[{"content":[],"role":"user"},\r\n{"role":"assistant","content":"x"}],"stream":true,"max_tokens":5e1}\t`;
    expect(scanVendorSummary(bytes(body))).toEqual({
      model: 'cl"au\\de',
      messages: 2,
      max_tokens: 50,
      stream: true,
    });
    expect(scanVendorSummary(bytes(body))).toEqual(parsedSummary(bytes(body)));
  });

  it('is unsure of anything that is not one whole JSON object of that shape', () => {
    for (const body of [
      '',
      '[]',
      '{"model":"m","messages":[]',
      '{"model":"m","messages":[]} x',
      '{"model":"m","messages":[],}',
      '{"model":"m" "messages":[]}',
      '{"model":"m","messages":[{"role":"user","content":"a"}{"role":"user","content":"b"}]}',
      '{"model":"m","messages":[],"x":tru}',
      '{"model":"m","messages":[],"x":01}',
      '{"model":"m","messages":[],"x":[1,]}',
      '{"model":"m","messages":[],"x":"unterminated}',
      '{"model":"","messages":[]}',
      '{"model":"m","messages":[],"max_tokens":1.5}',
      '{"model":"m","messages":[],"max_tokens":-1}',
      '{"model":"m","messages":[],"stream":null}',
      '{"model":"m","messages":[{"role":"system","content":"a"}]}',
      '{"model":"m","messages":[{"role":"user"}]}',
      '{"model":"m","messages":[],"system":{}}',
      `{"model":"m","messages":[],"x":${'['.repeat(300)}${']'.repeat(300)}}`,
    ]) {
      expect(scanVendorSummary(bytes(body)), body).toBeUndefined();
    }
  });
});

describe('LazyVendor', () => {
  const body = bytes('{"model":"m","messages":[{"role":"user","content":"hi"}],"max_tokens":7}');

  it('parses only when read, once, and keeps what a middleware set', () => {
    const vendor = new LazyVendor(body);
    expect(vendor.touched).toBe(false);
    const first = vendor.read();
    expect(first).toMatchObject({ model: 'm', max_tokens: 7 });
    expect(vendor.read()).toBe(first);
    expect(vendor.touched).toBe(true);
    vendor.write({ model: 'n', messages: [] });
    expect(vendor.read()).toEqual({ model: 'n', messages: [] });
    expect(vendor.original()).toBe(first);
  });

  it('sums a body up by a scan without touching it, and from the data once a middleware did', () => {
    // A content block without a type: the scan takes it, the parse (zod) would not.
    const loose = new LazyVendor(bytes('{"model":"m","messages":[{"role":"user","content":[{}]}]}'));
    expect(loose.summary()).toEqual({ model: 'm', messages: 1, max_tokens: undefined, stream: false });
    expect(loose.touched).toBe(false);
    expect(loose.read()).toBeUndefined();

    const vendor = new LazyVendor(body);
    vendor.read()!.max_tokens = 9;
    expect(vendor.summary()).toMatchObject({ max_tokens: 9 });
    // Not JSON at all: neither the scan nor the parse make anything of it.
    expect(new LazyVendor(bytes('{not json')).summary()).toBeUndefined();
  });
});
