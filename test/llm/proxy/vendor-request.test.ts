import { describe, expect, it } from 'vitest';
import { isMessagesRequest, parseVendorRequest } from '../../../src/llm/proxy/vendor-request.ts';

const json = (value: unknown) => Buffer.from(JSON.stringify(value));

describe('isMessagesRequest', () => {
  it('matches POST to /v1/messages with any query, under any prefix', () => {
    expect(isMessagesRequest('POST', '/v1/messages')).toBe(true);
    expect(isMessagesRequest('POST', '/v1/messages?beta=true')).toBe(true);
    expect(isMessagesRequest('POST', '/gateway/v1/messages')).toBe(true);
  });

  it('does not match other methods or endpoints', () => {
    expect(isMessagesRequest('GET', '/v1/messages')).toBe(false);
    expect(isMessagesRequest('POST', '/v1/messages/count_tokens')).toBe(false);
    expect(isMessagesRequest('POST', '/v1/complete')).toBe(false);
  });
});

describe('parseVendorRequest', () => {
  it('parses a Messages request and keeps unknown fields', () => {
    const parsed = parseVendorRequest(
      json({
        model: 'claude-sonnet-4-5',
        max_tokens: 1024,
        stream: true,
        messages: [
          { role: 'user', content: [{ type: 'text', text: 'hi', cache_control: { type: 'ephemeral' } }] },
        ],
        context_management: { edits: [] },
      }),
    );
    expect(parsed).toMatchObject({ model: 'claude-sonnet-4-5', max_tokens: 1024, stream: true });
    expect(parsed?.context_management).toEqual({ edits: [] });
    expect(parsed?.messages[0]?.content).toEqual([
      { type: 'text', text: 'hi', cache_control: { type: 'ephemeral' } },
    ]);
  });

  it('gives undefined for bodies that are not that shape', () => {
    expect(parseVendorRequest(Buffer.alloc(0))).toBeUndefined();
    expect(parseVendorRequest(Buffer.from('{not json'))).toBeUndefined();
    expect(parseVendorRequest(json([1, 2]))).toBeUndefined();
    expect(parseVendorRequest(json({ model: 'm' }))).toBeUndefined();
    expect(parseVendorRequest(json({ messages: [] }))).toBeUndefined();
    expect(
      parseVendorRequest(json({ model: 'm', messages: [{ role: 'system', content: 'x' }] })),
    ).toBeUndefined();
  });
});
