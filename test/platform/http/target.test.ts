import { describe, expect, it } from 'vitest';
import { parseTarget, type Target, targetPath } from '../../../src/platform/http/target.ts';

function target(url: string): Target {
  const result = parseTarget(url);
  if (!result.ok) throw new Error(result.message);
  return result.value;
}

describe('parseTarget', () => {
  it('takes an https URL apart with its default port', () => {
    expect(target('https://api.anthropic.com')).toEqual({
      protocol: 'https:',
      hostname: 'api.anthropic.com',
      port: 443,
      host: 'api.anthropic.com',
      pathPrefix: '',
    });
  });

  it('keeps a path prefix without its trailing slash, and an explicit port in Host', () => {
    expect(target('http://127.0.0.1:8080/gateway/anthropic/')).toMatchObject({
      port: 8080,
      host: '127.0.0.1:8080',
      pathPrefix: '/gateway/anthropic',
    });
  });

  it('strips IPv6 brackets for the socket but keeps them in Host', () => {
    expect(target('http://[::1]:9000')).toMatchObject({ hostname: '::1', host: '[::1]:9000' });
  });

  it('refuses what cannot be a base URL', () => {
    for (const bad of [
      'nope',
      'ftp://x.test',
      'http://x.test/?a=1',
      'http://x.test/#f',
      'http://u:p@x.test',
    ]) {
      expect(parseTarget(bad).ok, bad).toBe(false);
    }
  });
});

describe('targetPath', () => {
  it('puts the request path and query under the prefix', () => {
    expect(targetPath(target('http://x.test/p/'), '/v1/messages?beta=true')).toBe('/p/v1/messages?beta=true');
    expect(targetPath(target('http://x.test'), '/v1/models')).toBe('/v1/models');
  });

  it('takes path and query out of an absolute-form request target', () => {
    expect(targetPath(target('http://x.test/p'), 'http://proxy.test:1/v1/x?y=2')).toBe('/p/v1/x?y=2');
  });
});
