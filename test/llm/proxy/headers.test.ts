import { describe, expect, it } from 'vitest';
import {
  clientResponseHeaders,
  hasBodyFraming,
  toHeaderMap,
  upstreamRequestHeaders,
} from '../../../src/llm/proxy/headers.ts';

/** A flat [name, value, ...] list as pairs, for readable assertions. */
function pairs(flat: string[]): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  for (let i = 0; i < flat.length; i += 2) out.push([flat[i]!, flat[i + 1]!]);
  return out;
}

describe('toHeaderMap', () => {
  it('keeps strings and joins repeated values', () => {
    expect(toHeaderMap({ a: '1', 'set-cookie': ['x=1', 'y=2'], gone: undefined })).toEqual({
      a: '1',
      'set-cookie': 'x=1, y=2',
    });
  });
});

describe('upstreamRequestHeaders', () => {
  it('drops hop-by-hop headers, any Proxy-* header and names listed in Connection', () => {
    const flat = upstreamRequestHeaders(
      {
        connection: 'keep-alive, X-Hop',
        'keep-alive': 'timeout=5',
        'transfer-encoding': 'chunked',
        te: 'trailers',
        trailer: 'x-t',
        upgrade: 'websocket',
        'proxy-authorization': 'Basic x',
        'proxy-connection': 'keep-alive',
        'x-hop': 'secret',
        'x-api-key': 'k',
        accept: '*/*',
      },
      'target.test',
      3,
    );
    expect(pairs(flat)).toEqual([
      ['host', 'target.test'],
      ['x-api-key', 'k'],
      ['accept', '*/*'],
      ['content-length', '3'],
    ]);
  });

  it('replaces Host and Content-Length, drops Expect, and sends no length for bodiless requests', () => {
    const flat = upstreamRequestHeaders(
      { host: 'proxy:4001', 'content-length': '999', expect: '100-continue', 'user-agent': 'ua' },
      'api.example.test:8443',
      undefined,
    );
    expect(pairs(flat)).toEqual([
      ['host', 'api.example.test:8443'],
      ['user-agent', 'ua'],
    ]);
  });
});

describe('hasBodyFraming', () => {
  it('sees Content-Length or Transfer-Encoding', () => {
    expect(hasBodyFraming({ 'content-length': '0' })).toBe(true);
    expect(hasBodyFraming({ 'transfer-encoding': 'chunked' })).toBe(true);
    expect(hasBodyFraming({ accept: '*/*' })).toBe(false);
  });
});

describe('clientResponseHeaders', () => {
  it('drops hop-by-hop headers and keeps the target Content-Length for an untouched body', () => {
    const flat = clientResponseHeaders(
      {
        connection: 'x-up-hop',
        'x-up-hop': '1',
        'transfer-encoding': 'chunked',
        'content-type': 'text/event-stream',
        'content-length': '10',
      },
      'keep',
      undefined,
    );
    expect(pairs(flat)).toEqual([
      ['content-type', 'text/event-stream'],
      ['content-length', '10'],
    ]);
  });

  it('recomputes Content-Length for a replaced body', () => {
    const flat = clientResponseHeaders(
      { 'content-length': '10', 'content-type': 'text/plain' },
      4,
      undefined,
    );
    expect(pairs(flat)).toEqual([
      ['content-type', 'text/plain'],
      ['content-length', '4'],
    ]);
  });

  it('restores the target set-cookie list when middleware left it alone', () => {
    const cookies = ['a=1; Expires=Wed, 21 Oct 2026 07:28:00 GMT', 'b=2'];
    const untouched = clientResponseHeaders({ 'set-cookie': cookies.join(', ') }, 'keep', cookies);
    expect(pairs(untouched)).toEqual([
      ['set-cookie', cookies[0]!],
      ['set-cookie', cookies[1]!],
    ]);
    const replaced = clientResponseHeaders({ 'set-cookie': 'c=3' }, 'keep', cookies);
    expect(pairs(replaced)).toEqual([['set-cookie', 'c=3']]);
  });
});
