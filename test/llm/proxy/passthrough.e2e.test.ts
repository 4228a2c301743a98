import { randomBytes } from 'node:crypto';
import { type Readable, Transform } from 'node:stream';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createDoubleMaxTokensMiddleware } from '../../../src/llm/proxy/middleware/double-max-tokens.ts';
import { createLoggingMiddleware } from '../../../src/llm/proxy/middleware/logging.ts';
import { duplicateBody } from '../../../src/llm/proxy/tee.ts';
import type { Middleware, ProxyRequest } from '../../../src/llm/proxy/types.ts';
import { request } from './helpers/client.ts';
import { captureLogger, linesTagged } from './helpers/logs.ts';
import { startProxy, type TestProxy } from './helpers/proxy.ts';
import { echo, startUpstream, type TestUpstream } from './helpers/upstream.ts';

let upstream: TestUpstream;
let proxy: TestProxy | undefined;

beforeAll(async () => {
  upstream = await startUpstream();
});
afterAll(async () => {
  await upstream.close();
});
afterEach(async () => {
  await proxy?.stop();
  proxy = undefined;
  upstream.received.length = 0;
  upstream.handle(echo);
});

const messagesBody = {
  model: 'claude-sonnet-4-5',
  max_tokens: 100,
  messages: [{ role: 'user', content: 'Hello' }],
  metadata: { user_id: 'u1' },
};

describe('health', () => {
  it('answers GET /health and GET / itself, in plain text', async () => {
    proxy = await startProxy(upstream.url);
    for (const path of ['/health', '/']) {
      const response = await request(`${proxy.url}${path}`);
      expect(response.status).toBe(200);
      expect(response.headers['content-type']).toMatch(/^text\/plain/);
      expect(response.body.toString()).toBe('Ribosome Proxy OK');
    }
    expect(upstream.received).toEqual([]);
  });

  it('uses the configured name', async () => {
    proxy = await startProxy(upstream.url, { name: 'Acme' });
    expect((await request(`${proxy.url}/health`)).body.toString()).toBe('Acme Proxy OK');
  });
});

describe('passthrough', () => {
  it.each(['GET', 'POST', 'PUT', 'DELETE'])(
    '%s: path, query and binary body arrive and return byte for byte',
    async (method) => {
      proxy = await startProxy(upstream.url);
      const body = method === 'GET' ? undefined : randomBytes(70_000);
      const response = await request(`${proxy.url}/v1/files/abc?x=1&y=%C3%A9`, {
        method,
        headers: { 'content-type': 'application/octet-stream', 'x-api-key': 'k' },
        body,
      });
      expect(response.status).toBe(200);
      const seen = upstream.received[0]!;
      expect(seen.method).toBe(method);
      expect(seen.url).toBe('/v1/files/abc?x=1&y=%C3%A9');
      expect(seen.headers['x-api-key']).toBe('k');
      expect(seen.body.equals(body ?? Buffer.alloc(0))).toBe(true);
      expect(response.body.equals(body ?? Buffer.alloc(0))).toBe(true);
      expect(response.headers['x-echo-method']).toBe(method);
      expect(response.headers['content-length']).toBe(String(body?.length ?? 0));
    },
  );

  it('sets Host for the target, once, and forwards under a base URL path prefix', async () => {
    proxy = await startProxy(`${upstream.url}/gateway/anthropic/`);
    await request(`${proxy.url}/v1/models?limit=2`, { headers: { host: 'somewhere.else' } });
    const seen = upstream.received[0]!;
    expect(seen.url).toBe('/gateway/anthropic/v1/models?limit=2');
    const hosts = seen.rawHeaders.filter(
      (_, i) => i % 2 === 0 && seen.rawHeaders[i]!.toLowerCase() === 'host',
    );
    expect(hosts).toHaveLength(1);
    expect(seen.headers.host).toBe(`127.0.0.1:${upstream.port}`);
  });

  it('drops hop-by-hop headers in both directions', async () => {
    proxy = await startProxy(upstream.url);
    upstream.handle((_received, res) => {
      res.writeHead(200, {
        connection: 'x-up-hop',
        'x-up-hop': 'secret',
        'x-kept': 'yes',
        'content-type': 'text/plain',
      });
      res.end('ok');
    });
    const response = await request(`${proxy.url}/v1/x`, {
      headers: {
        connection: 'keep-alive, x-down-hop',
        'x-down-hop': 'secret',
        'proxy-authorization': 'Basic abc',
        te: 'trailers',
        'x-kept': 'yes',
      },
    });
    const seen = upstream.received[0]!.headers;
    expect(seen['x-down-hop']).toBeUndefined();
    expect(seen['proxy-authorization']).toBeUndefined();
    expect(seen.te).toBeUndefined();
    expect(seen['x-kept']).toBe('yes');
    expect(response.headers['x-up-hop']).toBeUndefined();
    expect(response.headers['x-kept']).toBe('yes');
  });

  it('relays the target status, headers and body, set-cookie list included', async () => {
    proxy = await startProxy(upstream.url);
    upstream.handle((_received, res) => {
      res.writeHead(429, {
        'content-type': 'application/json',
        'retry-after': '7',
        'set-cookie': ['a=1; Expires=Wed, 21 Oct 2026 07:28:00 GMT', 'b=2'],
      });
      res.end('{"type":"error","error":{"type":"rate_limit_error","message":"slow down"}}');
    });
    const response = await request(`${proxy.url}/v1/messages`, { method: 'POST', body: '{}' });
    expect(response.status).toBe(429);
    expect(response.headers['retry-after']).toBe('7');
    expect(response.headers['set-cookie']).toEqual(['a=1; Expires=Wed, 21 Oct 2026 07:28:00 GMT', 'b=2']);
    expect(JSON.parse(response.body.toString()).error.type).toBe('rate_limit_error');
  });

  it('forwards a body sent chunked (no Content-Length) with a Content-Length', async () => {
    proxy = await startProxy(upstream.url);
    const body = randomBytes(5000);
    await request(`${proxy.url}/v1/upload`, {
      method: 'POST',
      headers: { 'transfer-encoding': 'chunked' },
      body,
    });
    const seen = upstream.received[0]!;
    expect(seen.body.equals(body)).toBe(true);
    expect(seen.headers['content-length']).toBe('5000');
    expect(seen.headers['transfer-encoding']).toBeUndefined();
  });
});

describe('provider-format requests', () => {
  it('hands middleware vendorRequestData and rebuilds the body from its edits, Content-Length included', async () => {
    let seenByMiddleware: ProxyRequest | undefined;
    const edit: Middleware = {
      request: async (req) => {
        seenByMiddleware = { ...req };
        req.vendorRequestData!.model = 'claude-opus-4-1';
        req.vendorRequestData!.system = 'Be brief. ünïcödé';
        return req;
      },
    };
    proxy = await startProxy(upstream.url, { middleware: [edit] });
    const sent = JSON.stringify(messagesBody);
    await request(`${proxy.url}/v1/messages?beta=true`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: sent,
    });
    expect(seenByMiddleware?.vendorRequestData?.model).toBe('claude-opus-4-1');
    expect(seenByMiddleware?.body).toBe(sent);
    const seen = upstream.received[0]!;
    expect(seen.url).toBe('/v1/messages?beta=true');
    expect(JSON.parse(seen.body.toString())).toEqual({
      ...messagesBody,
      model: 'claude-opus-4-1',
      system: 'Be brief. ünïcödé',
    });
    expect(seen.headers['content-length']).toBe(String(seen.body.length));
  });

  it('applies a vendorRequestData replaced in a returned copy', async () => {
    const replace: Middleware = {
      request: async (req) => ({ ...req, vendorRequestData: { ...req.vendorRequestData!, max_tokens: 5 } }),
    };
    proxy = await startProxy(upstream.url, { middleware: [replace] });
    await request(`${proxy.url}/v1/messages`, { method: 'POST', body: JSON.stringify(messagesBody) });
    expect(JSON.parse(upstream.received[0]!.body.toString()).max_tokens).toBe(5);
  });

  it('forwards the agent bytes untouched when only read-only middleware runs', async () => {
    const { logger } = captureLogger();
    proxy = await startProxy(upstream.url, { middleware: [createLoggingMiddleware(logger)] });
    const sent = `{ "messages" : [ {"role":"user","content":"hi"} ],\n  "model":"m", "max_tokens": 10 }`;
    await request(`${proxy.url}/v1/messages`, { method: 'POST', body: sent });
    expect(upstream.received[0]!.body.toString()).toBe(sent);
  });

  it('forwards the agent bytes of a Messages request no middleware read, even beside one that may change requests', async () => {
    const { logger, lines } = captureLogger();
    const headersOnly: Middleware = {
      name: 'headersOnly',
      request: async (req) => {
        req.headers['x-seen'] = '1';
        return req;
      },
    };
    proxy = await startProxy(upstream.url, { middleware: [createLoggingMiddleware(logger), headersOnly] });
    const sent = `{ "model" : "m",\n "messages": [ {"role":"user","content":"h\\u00e9"} ], "max_tokens": 1.0e1 }`;
    await request(`${proxy.url}/v1/messages`, { method: 'POST', body: sent });
    const seen = upstream.received[0]!;
    expect(seen.body.toString()).toBe(sent);
    expect(seen.headers['x-seen']).toBe('1');
    // LoggingMiddleware still says what was asked, from a scan of the bytes.
    expect(linesTagged(lines, '[LOGGING-MIDDLEWARE] request')[0]).toMatchObject({
      model: 'm',
      messages: 1,
      max_tokens: 10,
      stream: false,
    });
  });

  it('re-serializes a Messages body a middleware read, and logs what the middleware before the log left', async () => {
    const { logger, lines } = captureLogger();
    const reader: Middleware = {
      request: async (req) => {
        req.vendorRequestData!.max_tokens = (req.vendorRequestData!.max_tokens ?? 0) + 1;
        return req;
      },
    };
    proxy = await startProxy(upstream.url, { middleware: [reader, createLoggingMiddleware(logger)] });
    const sent = `{ "model" : "m", "messages": [ {"role":"user","content":"hi"} ], "max_tokens": 10 }`;
    await request(`${proxy.url}/v1/messages`, { method: 'POST', body: sent });
    expect(upstream.received[0]!.body.toString()).toBe(
      JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'hi' }], max_tokens: 11 }),
    );
    expect(linesTagged(lines, '[LOGGING-MIDDLEWARE] request')[0]).toMatchObject({ max_tokens: 11 });
  });

  it('never changes the body of other requests, whatever middleware returns', async () => {
    const tamper: Middleware = {
      request: async (req) => ({ ...req, body: 'tampered', vendorRequestData: { model: 'x', messages: [] } }),
    };
    proxy = await startProxy(upstream.url, { middleware: [tamper] });
    for (const [url, body] of [
      ['/v1/complete', JSON.stringify(messagesBody)],
      ['/v1/messages', '{"model": "m", "messages": "not a list"}'],
    ] as const) {
      upstream.received.length = 0;
      await request(`${proxy.url}${url}`, { method: 'POST', body });
      expect(upstream.received[0]!.body.toString()).toBe(body);
    }
  });

  it('DoubleMaxTokens doubles max_tokens on the wire', async () => {
    proxy = await startProxy(upstream.url, { middleware: [createDoubleMaxTokensMiddleware()] });
    await request(`${proxy.url}/v1/messages?beta=true`, {
      method: 'POST',
      body: JSON.stringify(messagesBody),
    });
    const seen = upstream.received[0]!;
    expect(JSON.parse(seen.body.toString()).max_tokens).toBe(200);
    expect(seen.headers['content-length']).toBe(String(seen.body.length));
  });
});

describe('response middleware', () => {
  it('can replace the body; Content-Length is recomputed', async () => {
    const replace: Middleware = { response: async (res) => ({ ...res, body: 'replaced ✓' }) };
    proxy = await startProxy(upstream.url, { middleware: [replace] });
    const response = await request(`${proxy.url}/v1/x`, { method: 'POST', body: 'original body' });
    expect(response.body.toString()).toBe('replaced ✓');
    expect(response.headers['content-length']).toBe(String(Buffer.byteLength('replaced ✓')));
  });

  it('can replace the body with a new stream, sent chunked without the target length', async () => {
    const upper: Middleware = {
      response: async (res) => {
        const source = res.body as Readable;
        const upperCased = source.pipe(
          new Transform({
            transform(chunk: Buffer, _encoding, done) {
              done(null, chunk.toString('latin1').toUpperCase());
            },
          }),
        );
        return { ...res, body: upperCased };
      },
    };
    proxy = await startProxy(upstream.url, { middleware: [upper] });
    const response = await request(`${proxy.url}/v1/x`, { method: 'POST', body: 'shout this' });
    expect(response.body.toString()).toBe('SHOUT THIS');
    expect(response.headers['content-length']).toBeUndefined();
    expect(response.headers['transfer-encoding']).toBe('chunked');
  });

  it('keeps the target Content-Length for a body duplicated for inspection', async () => {
    const inspect: Middleware = {
      response: async (res) => {
        const { response, copy } = duplicateBody(res);
        copy.resume();
        return response;
      },
    };
    upstream.handle((_received, res) => {
      res.writeHead(200, { 'content-type': 'text/plain', 'content-length': 12 });
      res.end('twelve bytes');
    });
    proxy = await startProxy(upstream.url, { middleware: [inspect] });
    const response = await request(`${proxy.url}/v1/x`, { method: 'POST', body: 'ignored' });
    expect(response.headers['content-length']).toBe('12');
    expect(response.body.toString()).toBe('twelve bytes');
  });

  it('can inspect a copy of the body while the agent gets the original', async () => {
    let inspected: Promise<string> | undefined;
    const inspect: Middleware = {
      response: async (res) => {
        const { response, copy } = duplicateBody(res);
        inspected = (async () => {
          const chunks: Buffer[] = [];
          for await (const chunk of copy) chunks.push(chunk as Buffer);
          return Buffer.concat(chunks).toString('base64');
        })();
        return response;
      },
    };
    proxy = await startProxy(upstream.url, { middleware: [inspect] });
    const body = randomBytes(200_000);
    const response = await request(`${proxy.url}/v1/x`, { method: 'POST', body });
    expect(response.body.equals(body)).toBe(true);
    expect(await inspected).toBe(body.toString('base64'));
  });
});

describe('LoggingMiddleware through the proxy', () => {
  it('logs provider-format requests by their fields and other requests by a truncated body', async () => {
    const { logger, lines } = captureLogger();
    proxy = await startProxy(upstream.url, { middleware: [createLoggingMiddleware(logger)] });
    await request(`${proxy.url}/v1/messages?beta=true`, {
      method: 'POST',
      body: JSON.stringify({ ...messagesBody, stream: true }),
    });
    await request(`${proxy.url}/v1/other`, { method: 'POST', body: 'y'.repeat(5000) });
    const logged = linesTagged(lines, '[LOGGING-MIDDLEWARE]');
    expect(logged).toHaveLength(4);
    expect(logged[0]).toMatchObject({
      method: 'POST',
      url: '/v1/messages?beta=true',
      model: 'claude-sonnet-4-5',
      messages: 1,
      max_tokens: 100,
      stream: true,
    });
    expect(logged[1]).toMatchObject({ url: '/v1/messages?beta=true', status: 200 });
    expect(logged[2]).toMatchObject({ method: 'POST', url: '/v1/other' });
    expect(String(logged[2]!.body).length).toBeLessThan(300);
    expect(JSON.stringify(lines)).not.toContain('y'.repeat(300));
  });
});
