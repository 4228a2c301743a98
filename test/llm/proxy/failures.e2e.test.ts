import { once } from 'node:events';
import http from 'node:http';
import type { LookupFunction } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Middleware } from '../../../src/llm/proxy/types.ts';
import { errorOf, request } from './helpers/client.ts';
import { linesTagged } from './helpers/logs.ts';
import { startProxy, type TestProxy } from './helpers/proxy.ts';
import { readText, signal } from './helpers/text-reader.ts';
import { echo, freePort, startUpstream, type TestUpstream } from './helpers/upstream.ts';

let upstream: TestUpstream;
let proxy: TestProxy | undefined;
const clients: http.ClientRequest[] = [];

beforeAll(async () => {
  upstream = await startUpstream();
});
afterAll(async () => {
  await upstream.close();
});
afterEach(async () => {
  for (const client of clients.splice(0)) client.destroy();
  await proxy?.stop();
  proxy = undefined;
  upstream.received.length = 0;
  upstream.handle(echo);
});

const messages = JSON.stringify({ model: 'm', max_tokens: 5, messages: [{ role: 'user', content: 'hi' }] });

function post(url: string, body = messages) {
  return request(`${url}/v1/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body,
  });
}

/** The proxy still answers health checks and forwards to a working upstream. */
async function expectStillServing(p: TestProxy) {
  expect((await request(`${p.url}/health`)).status).toBe(200);
}

function expectApiError(response: Awaited<ReturnType<typeof request>>, status: number, text: RegExp) {
  expect(response.status).toBe(status);
  expect(response.headers['content-type']).toBe('application/json');
  const body = errorOf(response);
  expect(body.type).toBe('error');
  expect(body.error.type).toBe(status === 413 ? 'request_too_large' : 'api_error');
  expect(body.error.message).toMatch(text);
}

function errorLines(p: TestProxy) {
  return linesTagged(p.lines, '[PROXY-ERROR]');
}

/** Opens a streaming request and resolves with the response head. */
async function openStream(
  url: string,
): Promise<{ client: http.ClientRequest; response: http.IncomingMessage }> {
  const client = http.request(`${url}/v1/messages`, {
    method: 'POST',
    agent: false,
    headers: { 'content-length': Buffer.byteLength(messages) },
  });
  clients.push(client);
  client.end(messages);
  const [response] = (await once(client, 'response')) as [http.IncomingMessage];
  return { client, response };
}

describe('failures before the answer starts', () => {
  it('target unreachable: 502 and a [PROXY-ERROR] line', async () => {
    proxy = await startProxy(`http://127.0.0.1:${await freePort()}`);
    expectApiError(await post(proxy.url), 502, /unreachable \(ECONNREFUSED\)/);
    expect(errorLines(proxy)[0]).toMatchObject({
      code: 'UPSTREAM_UNREACHABLE',
      method: 'POST',
      url: '/v1/messages',
    });
    await expectStillServing(proxy);
  });

  it('DNS failure: 502 naming the host (resolver injected, nothing leaves loopback)', async () => {
    const asked: string[] = [];
    const failingLookup: LookupFunction = (hostname, _options, callback) => {
      asked.push(hostname);
      const error = Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
      process.nextTick(() => callback(error, '', 4));
    };
    proxy = await startProxy('http://provider.invalid', { lookup: failingLookup });
    expectApiError(
      await post(proxy.url),
      502,
      /could not resolve the provider host http:\/\/provider\.invalid/,
    );
    expect(asked).toContain('provider.invalid');
    expect(errorLines(proxy)[0]).toMatchObject({ code: 'UPSTREAM_DNS_FAILURE' });
    await expectStillServing(proxy);
  });

  it('timeout: 504 when the target stays silent past the idle timeout, and the target request is dropped', async () => {
    const targetSawClose = signal();
    upstream.handle((_received, res) => {
      res.on('close', targetSawClose.resolve);
    });
    proxy = await startProxy(upstream.url, { idleTimeoutMs: 150 });
    expectApiError(await post(proxy.url), 504, /did not answer in time/);
    await targetSawClose.promise;
    expect(errorLines(proxy)[0]).toMatchObject({ code: 'UPSTREAM_TIMEOUT' });
    await expectStillServing(proxy);
  });

  it('target resets the connection before answering: 502', async () => {
    upstream.handle((_received, _res, req) => {
      req.socket.destroy();
    });
    proxy = await startProxy(upstream.url);
    expectApiError(await post(proxy.url), 502, /closed the connection/);
    expect(errorLines(proxy)[0]).toMatchObject({ code: 'UPSTREAM_RESET' });
    upstream.handle(echo);
    expect((await post(proxy.url)).status).toBe(200);
  });

  it('a fresh connection the target drops is not retried: the request reached it once', async () => {
    upstream.handle((_received, _res, req) => {
      req.socket.destroy();
    });
    proxy = await startProxy(upstream.url);
    expectApiError(await post(proxy.url), 502, /closed the connection/);
    expect(upstream.received).toHaveLength(1);
  });

  it('a kept-alive connection the target dropped is retried once on a fresh one', async () => {
    const served = new WeakSet<object>();
    let dropped = 0;
    upstream.handle((received, res, req) => {
      // The second request on a connection finds it "closed while idle", as a target's timeout would.
      if (served.has(req.socket) && dropped === 0) {
        dropped += 1;
        req.socket.destroy();
        return;
      }
      served.add(req.socket);
      echo(received, res, req);
    });
    proxy = await startProxy(upstream.url);
    expect((await post(proxy.url)).status).toBe(200);
    expect((await post(proxy.url)).status).toBe(200);
    expect(dropped).toBe(1);
    expect(upstream.received).toHaveLength(3);
    expect(errorLines(proxy)).toEqual([]);
  });

  it('a request middleware throws: 500 naming it, nothing forwarded', async () => {
    const broken: Middleware = {
      name: 'broken-auth',
      request: async () => {
        throw new Error('no key');
      },
    };
    proxy = await startProxy(upstream.url, { middleware: [broken] });
    expectApiError(await post(proxy.url), 500, /request middleware broken-auth failed: no key/);
    expect(upstream.received).toEqual([]);
    expect(errorLines(proxy)[0]).toMatchObject({ code: 'MIDDLEWARE_FAILED' });
    await expectStillServing(proxy);
  });

  it('a response middleware throws: 500 naming it', async () => {
    const broken: Middleware = {
      name: 'broken-audit',
      response: async () => {
        throw new Error('disk full');
      },
    };
    proxy = await startProxy(upstream.url, { middleware: [broken] });
    expectApiError(await post(proxy.url), 500, /response middleware broken-audit failed: disk full/);
    await expectStillServing(proxy);
  });

  it('middleware output Node refuses (a header with a newline): 500, and the proxy keeps serving', async () => {
    const badHeader: Middleware = {
      request: async (req) => ({ ...req, headers: { ...req.headers, 'x-bad': 'a\r\nInjected: 1' } }),
    };
    proxy = await startProxy(upstream.url, { middleware: [badHeader] });
    expectApiError(await post(proxy.url), 500, /internal error/);
    expect(errorLines(proxy)[0]).toMatchObject({ code: 'PROXY_INTERNAL' });
    expect(upstream.received).toEqual([]);
    await expectStillServing(proxy);
  });

  it('a response middleware that sets a status Node refuses: 500', async () => {
    const badStatus: Middleware = { response: async (res) => ({ ...res, status: 42 }) };
    proxy = await startProxy(upstream.url, { middleware: [badStatus] });
    expectApiError(await post(proxy.url), 500, /internal error/);
    await expectStillServing(proxy);
  });

  it('oversized bodies get 413, declared or chunked, and are not forwarded', async () => {
    proxy = await startProxy(upstream.url, { maxBodyBytes: 1024 });
    const big = Buffer.alloc(4096, 0x61);
    expectApiError(
      await request(`${proxy.url}/v1/x`, { method: 'POST', body: big }),
      413,
      /limit of 1024 bytes/,
    );
    const chunked = await request(`${proxy.url}/v1/x`, {
      method: 'POST',
      headers: { 'transfer-encoding': 'chunked' },
      body: big,
    });
    expectApiError(chunked, 413, /limit of 1024 bytes/);
    expect(upstream.received).toEqual([]);
    expect((await request(`${proxy.url}/v1/x`, { method: 'POST', body: Buffer.alloc(1024, 1) })).status).toBe(
      200,
    );
  });
});

describe('failures while streaming', () => {
  it('target resets mid-stream: the agent sees the stream fail, the proxy logs it and keeps serving', async () => {
    const sent = signal();
    upstream.handle(async (_received, res, req) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('event: message_start\ndata: {}\n\n');
      await sent.promise;
      req.socket.destroy();
    });
    proxy = await startProxy(upstream.url);
    const { response } = await openStream(proxy.url);
    const reader = readText(response);
    await reader.until((text) => text.includes('message_start'));
    sent.resolve();
    const end = await reader.finished;
    expect(end.kind).toBe('error');
    expect(errorLines(proxy)[0]).toMatchObject({ code: 'UPSTREAM_RESET' });
    expect(String(errorLines(proxy)[0]!.msg)).toContain('Stream cut');
    upstream.handle(echo);
    expect((await post(proxy.url)).status).toBe(200);
  });

  it('agent disconnects mid-stream: the upstream request is aborted', async () => {
    const targetSawClose = signal();
    upstream.handle((_received, res) => {
      res.on('close', targetSawClose.resolve);
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('event: message_start\ndata: {}\n\n');
    });
    proxy = await startProxy(upstream.url);
    const { client, response } = await openStream(proxy.url);
    await readText(response).until((text) => text.includes('message_start'));
    client.destroy();
    await targetSawClose.promise;
    await expect.poll(() => linesTagged(proxy!.lines, '[PROXY] agent disconnected').length).toBe(1);
    await expectStillServing(proxy);
  });

  it('agent disconnects while waiting for the answer: the upstream request is aborted', async () => {
    const targetGotRequest = signal();
    const targetSawClose = signal();
    upstream.handle((_received, res) => {
      res.on('close', targetSawClose.resolve);
      targetGotRequest.resolve();
    });
    proxy = await startProxy(upstream.url);
    const client = http.request(`${proxy.url}/v1/messages`, { method: 'POST', agent: false });
    client.on('error', () => {});
    clients.push(client);
    client.end(messages);
    await targetGotRequest.promise;
    client.destroy();
    await targetSawClose.promise;
    await expectStillServing(proxy);
  });
});
