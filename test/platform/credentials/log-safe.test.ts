import { describe, expect, it } from 'vitest';
import {
  errorForLog,
  isCredentialName,
  REDACTED,
  redactUrl,
} from '../../../src/platform/credentials/log-safe.ts';
import { captureLogger } from '../../llm/proxy/helpers/logs.ts';

describe('isCredentialName', () => {
  it.each([
    'key',
    'api_key',
    'apikey',
    'API_KEY',
    'x-api-key',
    'apiKey',
    'token',
    'access_token',
    'accessToken',
    'refresh_token',
    'id_token',
    'auth',
    'Authorization',
    'secret',
    'client_secret',
    'password',
    'passwd',
    'pwd',
    'sig',
    'signature',
    'X-Amz-Signature',
    'X-Amz-Credential',
    'X-Amz-Security-Token',
    'AWSAccessKeyId',
    'session',
    'sessionid',
    'jwt',
  ])('%s is a credential', (name) => {
    expect(isCredentialName(name)).toBe(true);
  });

  it.each(['beta', 'model', 'max_tokens', 'limit', 'keyword', 'page', 'design', 'stream', 'after_id'])(
    '%s is not',
    (name) => {
      expect(isCredentialName(name)).toBe(false);
    },
  );
});

describe('redactUrl', () => {
  it.each([
    ['/v1/messages', '/v1/messages'],
    ['/v1/messages?beta=true', '/v1/messages?beta=true'],
    ['/v1/messages?beta=true&api_key=sk-ant-1', `/v1/messages?beta=true&api_key=${REDACTED}`],
    ['/x?KEY=a&Key=b&key', `/x?KEY=${REDACTED}&Key=${REDACTED}&key`],
    ['/x?access%5Ftoken=a', `/x?access%5Ftoken=${REDACTED}`],
    ['/x?token=a=b&x=1', `/x?token=${REDACTED}&x=1`],
    ['/x?password=&sig=abc', `/x?password=${REDACTED}&sig=${REDACTED}`],
    ['/cb#access_token=abc&state=1', `/cb#access_token=${REDACTED}&state=1`],
    ['http://user:pw@host.test/p?q=1', `http://${REDACTED}@host.test/p?q=1`],
    ['HTTPS://tok@host.test/', `HTTPS://${REDACTED}@host.test/`],
    ['not a url?secret=s3', `not a url?secret=${REDACTED}`],
    // Found by a trial: a scheme-relative target, matrix parameters, a percent-encoded query.
    ['//user:PWLEAK13@evil/v1/messages', `//${REDACTED}@evil/v1/messages`],
    ['/v1/messages;jsessionid=LEAK9?q=1', `/v1/messages;jsessionid=${REDACTED}?q=1`],
    ['/v1/%3Fapi_key=LEAK17', `/v1/%3Fapi_key=${REDACTED}`],
    ['/v1/%3Fx%3D1%26token%3DLEAK', `/v1/?x=1&token=${REDACTED}`],
    ['/v1/%3Fmode=fast', '/v1/%3Fmode=fast'],
    ['/v1/a=b;c=d', '/v1/a=b;c=d'],
  ])('%s -> %s', (url, expected) => {
    expect(redactUrl(url)).toBe(expected);
  });
  it('answers the same for a URL seen before, and past the URLs it remembers', () => {
    const secret = `/v1/messages?beta=true&api_key=sk-ant-1`;
    expect(redactUrl(secret)).toBe(`/v1/messages?beta=true&api_key=${REDACTED}`);
    for (let n = 0; n < 1_000; n++)
      expect(redactUrl(`/p/${n}?token=t${n}`)).toBe(`/p/${n}?token=${REDACTED}`);
    expect(redactUrl(secret)).toBe(`/v1/messages?beta=true&api_key=${REDACTED}`);
    expect(redactUrl(secret)).toBe(`/v1/messages?beta=true&api_key=${REDACTED}`);
  });
});

describe('errorForLog', () => {
  it("keeps class, code, message and stack, and drops the rest (Node's rawPacket)", () => {
    const error = Object.assign(new TypeError('Parse Error: Invalid header value char'), {
      code: 'HPE_INVALID_HEADER_TOKEN',
      rawPacket: Buffer.from('x-api-key: sk-ant-secret\r\n'),
    });
    const { logger, lines } = captureLogger();
    logger.warn({ err: errorForLog(error) }, 'malformed');
    expect(lines[0]?.err).toEqual({
      type: 'TypeError',
      code: 'HPE_INVALID_HEADER_TOKEN',
      message: 'Parse Error: Invalid header value char',
      stack: error.stack,
    });
    expect(JSON.stringify(lines)).not.toContain('sk-ant-secret');
  });

  it('describes non-errors', () => {
    expect(errorForLog('boom').message).toBe('boom');
  });
});
