import { describe, expect, it } from 'vitest';
import {
  accessToken,
  checkToken,
  configBody,
  contentTypeOf,
  generateToken,
  parseServerUrl,
  redactToken,
  requestedFile,
  tokenMatches,
} from '../../../src/host/web-server/index.ts';

const TOKEN = 'the-right-token-0123456789';

describe('access token', () => {
  it('generates 32 random bytes as base64url, different each time', () => {
    const a = generateToken();
    expect(a).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(generateToken()).not.toBe(a);
  });

  it('finds it in the Bearer header or the query, never in a cookie; none is missing, a wrong one is wrong', () => {
    expect(checkToken({}, TOKEN)).toBe('missing');
    expect(checkToken({ url: '/?other=1' }, TOKEN)).toBe('missing');
    expect(checkToken({ authorization: `Bearer ${TOKEN}` }, TOKEN)).toBe('ok');
    expect(checkToken({ authorization: `bearer  ${TOKEN} ` }, TOKEN)).toBe('ok');
    expect(checkToken({ authorization: `Basic ${TOKEN}` }, TOKEN)).toBe('missing');
    expect(checkToken({ url: `/?token=${encodeURIComponent(TOKEN)}` }, TOKEN)).toBe('ok');
    expect(checkToken({ authorization: 'Bearer nope' }, TOKEN)).toBe('wrong');
    // A cookie is sent to every port of the host: it is not a place the token is read from.
    expect(checkToken({ cookie: `ribosome_token_7000=${TOKEN}` } as never, TOKEN)).toBe('missing');
    // One right place among wrong ones lets it in.
    expect(checkToken({ authorization: 'Bearer nope', url: `/?token=${TOKEN}` }, TOKEN)).toBe('ok');
    expect(tokenMatches(TOKEN, TOKEN)).toBe(true);
    expect(tokenMatches(TOKEN.slice(1), TOKEN)).toBe(false);
  });

  it('server addresses: ws/wss, a host, a port from 1 to 65535 (the scheme default when absent)', () => {
    expect(parseServerUrl('ws://127.0.0.1:7000')).toEqual({
      ok: true,
      url: 'ws://127.0.0.1:7000',
      port: 7000,
    });
    expect(parseServerUrl('ws://127.0.0.1:7000/')).toEqual({
      ok: true,
      url: 'ws://127.0.0.1:7000',
      port: 7000,
    });
    expect(parseServerUrl('ws://[::1]:7000')).toEqual({ ok: true, url: 'ws://[::1]:7000', port: 7000 });
    expect(parseServerUrl('wss://box.example')).toEqual({ ok: true, url: 'wss://box.example', port: 443 });
    for (const bad of [
      'ws://127.0.0.1:notaport',
      'ws://127.0.0.1:99999',
      'ws://127.0.0.1:65536',
      'ws://127.0.0.1:0',
      'ws://127.0.0.1:-1',
      'http://127.0.0.1:7000',
      'ws://127.0.0.1:7000/path',
      'ws://127.0.0.1:7000/?x=1',
      'ws://u:p@127.0.0.1:7000',
      'ws://',
      '127.0.0.1:7000',
      '',
    ]) {
      const parsed = parseServerUrl(bad);
      expect(parsed.ok, bad).toBe(false);
      if (!parsed.ok) expect(parsed.message, bad).toContain(`"${bad}" is not a WebSocket address`);
    }
  });

  it('redacts token= in URLs written to logs', () => {
    expect(redactToken(`/?token=${TOKEN}&x=1`)).toBe('/?token=[redacted]&x=1');
    expect(redactToken(`http://h:1/a?b=2&token=${TOKEN}`)).toBe('http://h:1/a?b=2&token=[redacted]');
    expect(redactToken('/app.js')).toBe('/app.js');
  });

  it('given (flag over env), none on loopback, generated beyond it, too short refused', () => {
    expect(accessToken({ flag: undefined, env: undefined, loopback: true })).toEqual({
      ok: true,
      token: undefined,
      generated: false,
    });
    expect(accessToken({ flag: undefined, env: '', loopback: true })).toMatchObject({ token: undefined });
    expect(accessToken({ flag: TOKEN, env: 'other-token-0123456789', loopback: true })).toEqual({
      ok: true,
      token: TOKEN,
      generated: false,
    });
    expect(accessToken({ flag: undefined, env: TOKEN, loopback: false })).toMatchObject({ token: TOKEN });
    const made = accessToken({ flag: undefined, env: undefined, loopback: false });
    expect(made).toMatchObject({ ok: true, generated: true, token: expect.stringMatching(/^\S{43}$/) });
    expect(accessToken({ flag: 'short', env: undefined, loopback: true })).toEqual({
      ok: false,
      message: '--token must be at least 16 characters',
    });
    expect(accessToken({ flag: undefined, env: 'has a space in it!!', loopback: true })).toEqual({
      ok: false,
      message: 'RIBOSOME_TOKEN must be printable ASCII without spaces',
    });
  });
});

describe('static files', () => {
  it.each([
    ['/', 'index.html'],
    ['/?token=x', 'index.html'],
    ['/app.js', 'app.js'],
    ['/assets/a%20b.css#x', 'assets/a b.css'],
    ['/../x', '../x'],
    ['/assets/', undefined],
    ['/%zz', undefined],
    ['/a%00b', undefined],
    ['/a\\b', undefined],
    ['relative', undefined],
  ])('%s -> %s (escapes are refused after, by confinePath)', (target, expected) => {
    expect(requestedFile(target)).toBe(expected);
  });

  it('content types', () => {
    expect(contentTypeOf('index.html')).toBe('text/html; charset=utf-8');
    expect(contentTypeOf('app.js')).toBe('text/javascript; charset=utf-8');
    expect(contentTypeOf('app.CSS')).toBe('text/css; charset=utf-8');
    expect(contentTypeOf('x.unknown')).toBe('application/octet-stream');
  });

  it('config.json lists the servers and the mode', () => {
    expect(JSON.parse(configBody(['ws://a:1', 'ws://b:2'], true))).toEqual({
      servers: [{ url: 'ws://a:1' }, { url: 'ws://b:2' }],
      readonly: true,
    });
    // A batch's page: its fleet, beside an empty list of servers (the page lists the jobs).
    expect(JSON.parse(configBody([], false, { name: 'nightly', jobs: [] }))).toEqual({
      servers: [],
      readonly: false,
      batch: { name: 'nightly', jobs: [] },
    });
  });
});
