import { describe, expect, it } from 'vitest';
import { classifyUpstreamError, IDLE_TIMEOUT_CODE } from '../../../src/llm/proxy/classify-error.ts';

const withCode = (code: string) => Object.assign(new Error(`failed: ${code}`), { code });

describe('classifyUpstreamError', () => {
  it.each([
    [IDLE_TIMEOUT_CODE, 'UPSTREAM_TIMEOUT', 504],
    ['ETIMEDOUT', 'UPSTREAM_TIMEOUT', 504],
    ['ENOTFOUND', 'UPSTREAM_DNS_FAILURE', 502],
    ['EAI_AGAIN', 'UPSTREAM_DNS_FAILURE', 502],
    ['ECONNREFUSED', 'UPSTREAM_UNREACHABLE', 502],
    ['EHOSTUNREACH', 'UPSTREAM_UNREACHABLE', 502],
    ['ECONNRESET', 'UPSTREAM_RESET', 502],
    ['UND_ERR_HEADERS_TIMEOUT', 'UPSTREAM_TIMEOUT', 504],
    ['UND_ERR_BODY_TIMEOUT', 'UPSTREAM_TIMEOUT', 504],
    ['UND_ERR_SOCKET', 'UPSTREAM_RESET', 502],
    ['HPE_INVALID_CONSTANT', 'UPSTREAM_FAILED', 502],
    ['CERT_HAS_EXPIRED', 'UPSTREAM_FAILED', 502],
  ])('%s -> %s %d', (code, expected, status) => {
    const failure = classifyUpstreamError(withCode(code), 'https://api.test');
    expect(failure.code).toBe(expected);
    expect(failure.status).toBe(status);
    expect(failure.message).toContain('https://api.test');
  });

  it('names an HTTP parse error of the target without a code as one', () => {
    const error = Object.assign(new Error('Response does not match the HTTP/1.1 protocol'), {
      name: 'HTTPParserError',
    });
    const failure = classifyUpstreamError(error, 'https://api.test');
    expect(failure).toMatchObject({ code: 'UPSTREAM_FAILED', status: 502 });
    expect(failure.message).toContain('(HPE_INVALID_RESPONSE: Response does not match');
  });

  it('copes with errors that are not Errors', () => {
    expect(classifyUpstreamError('boom', 'h').code).toBe('UPSTREAM_FAILED');
  });
});
