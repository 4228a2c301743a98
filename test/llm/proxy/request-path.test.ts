import { describe, expect, it } from 'vitest';
import { confinePath } from '../../../src/llm/proxy/request-path.ts';

describe('confinePath', () => {
  it.each([
    ['/v1/messages', '/v1/messages'],
    ['/v1/messages?beta=true', '/v1/messages?beta=true'],
    ['/', '/'],
    // No dot segment: byte for byte, encoded slashes and other escapes included.
    ['/v1/models/a%2Fb', '/v1/models/a%2Fb'],
    ['/v1/x%20y', '/v1/x%20y'],
    ['/v1/..x/...', '/v1/..x/...'],
    // Dot segments that stay under the start: resolved as the eagerest upstream would.
    ['/a/../v1/messages', '/v1/messages'],
    ['/./v1/./messages', '/v1/messages'],
    ['/v1/%2e%2e/v1/messages?q=1', '/v1/messages?q=1'],
    ['/v1/x%2f..%2fmessages', '/v1/messages'],
    ['/v1\\..\\messages', '/messages'],
    ['/v1/messages/..', '/v1/'],
    ['/v1/.', '/v1/'],
    // A query is not a path: its dots are left alone.
    ['/v1/messages?path=../../x', '/v1/messages?path=../../x'],
  ])('%s forwards as %s', (url, expected) => {
    expect(confinePath(url)).toEqual({ ok: true, url: expected });
  });

  it.each([
    '/..',
    '/../../tenant-b/v1/messages',
    '/v1/../../tenant-b',
    '/%2e%2e/tenant-b',
    '/%2E%2e/tenant-b',
    '/.%2e/tenant-b',
    '/v1%2f..%2f..%2ftenant-b',
    '/v1%2F%2e%2e%2F%2E%2E/tenant-b',
    '/..\\tenant-b',
    '/v1\\..\\..\\tenant-b',
    '/v1%5c..%5c..%5ctenant-b',
    // What a lenient upstream reads as one segment `a%2fb` an eager one reads as two: either way it must not climb out.
    '/a%2fb/../../..',
  ])('%s is refused with a message that says why', (url) => {
    const result = confinePath(url);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.message).toMatch(/climbs above its start.*path prefix/);
  });
});
