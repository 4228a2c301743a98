import { afterEach, describe, expect, it } from 'vitest';
import { type MockProvider, startMockProvider } from '../../../src/llm/mock-provider/server.ts';
import { REFUSED_HEADER } from '../../../src/llm/proxy/runner.ts';
import { startProxy, type TestProxy } from './helpers/proxy.ts';

/** The proxy's gate: a credential when it is given some, a path that stays under its prefix always. */

const open: Array<MockProvider | TestProxy> = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((o) => o.stop()));
});

async function provider(): Promise<MockProvider> {
  const p = await startMockProvider({ script: { turns: [], whenExhausted: { content: [{ text: 'hi' }] } } });
  open.push(p);
  return p;
}

const ask = (url: string, headers: Record<string, string> = {}) =>
  fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': 'k', ...headers },
    body: JSON.stringify({ model: 'm', max_tokens: 5, messages: [{ role: 'user', content: 'hi' }] }),
  });

const refusedCount = async (proxy: TestProxy) =>
  (await fetch(`${proxy.url}/health`)).headers.get(REFUSED_HEADER);

const TOKEN = 'proxy-access-token-0123456789';

describe('a proxy with credentials', () => {
  it('refuses (401, 403) and counts requests without one, passes those with one, and forwards neither credential', async () => {
    const main = await provider();
    const proxy = await startProxy(main.url, { credentials: [TOKEN, 'agent-credential'] });
    open.push(proxy);

    const none = await ask(`${proxy.url}/v1/messages`);
    expect(none.status).toBe(401);
    expect(await none.json()).toMatchObject({
      type: 'error',
      error: { type: 'authentication_error', message: expect.stringMatching(/access token/) },
    });
    const wrong = await ask(`${proxy.url}/t/not-the-token/v1/messages`);
    expect(wrong.status).toBe(403);
    expect(await wrong.json()).toMatchObject({ error: { type: 'permission_error' } });
    expect((await ask(`${proxy.url}/v1/messages`, { 'x-ribosome-token': 'nope' })).status).toBe(403);
    expect(main.requests).toHaveLength(0);
    expect(await refusedCount(proxy)).toBe('3');

    expect((await ask(`${proxy.url}/t/${TOKEN}/v1/messages`)).status).toBe(200);
    expect((await ask(`${proxy.url}/v1/messages`, { 'x-ribosome-token': TOKEN })).status).toBe(200);
    expect((await ask(`${proxy.url}/t/agent-credential/v1/messages`)).status).toBe(200);
    expect(main.requests.map((r) => r.url)).toEqual(['/v1/messages', '/v1/messages', '/v1/messages']);
    expect(main.requests.every((r) => r.headers['x-ribosome-token'] === undefined)).toBe(true);
    expect(await refusedCount(proxy)).toBe('3');

    // The log counts each refusal, and never holds a credential sent.
    const refusals = proxy.lines.filter((l) => String(l.msg).startsWith('[PROXY] refused'));
    expect(refusals.map((l) => l.refused)).toEqual([1, 2, 3]);
    expect(refusals.at(-1)?.msg).toMatch(/3 refused so far/);
    expect(JSON.stringify(proxy.lines)).not.toMatch(/not-the-token|agent-credential|proxy-access-token/);
  });

  it('without credentials (loopback) forwards as before and strips a stray x-ribosome-token', async () => {
    const main = await provider();
    const proxy = await startProxy(main.url);
    open.push(proxy);
    expect((await ask(`${proxy.url}/v1/messages`, { 'x-ribosome-token': 'x' })).status).toBe(200);
    expect(main.requests[0]?.headers['x-ribosome-token']).toBeUndefined();
    expect(await refusedCount(proxy)).toBe('0');
  });
});

describe('a path that leaves its prefix', () => {
  it.each([
    '/p/0/../../tenant-b/v1/messages',
    '/p/0/%2e%2e/%2e%2e/tenant-b/v1/messages',
    '/p/0/v1%2f..%2f..%2f..%2ftenant-b/v1/messages',
    '/p/0/..\\..\\tenant-b/v1/messages',
    '/../tenant-b/v1/messages',
  ])('%s gets 400, reaches no provider and is counted', async (path) => {
    const main = await provider();
    const gateway = await provider();
    const proxy = await startProxy(`${main.url}/tenant-a`, { routes: [`${gateway.url}/tenant-a`] });
    open.push(proxy);
    // fetch would resolve the dots itself: send the path as it is.
    const { status, body } = await rawPost(proxy.url, path);
    expect(status).toBe(400);
    expect(JSON.parse(body)).toMatchObject({
      error: { type: 'invalid_request_error', message: expect.stringMatching(/path prefix/) },
    });
    expect([...main.requests, ...gateway.requests]).toEqual([]);
    expect(await refusedCount(proxy)).toBe('1');
  });

  it('dot segments that stay under the prefix are resolved before forwarding', async () => {
    const gateway = await provider();
    const main = await provider();
    const proxy = await startProxy(main.url, { routes: [`${gateway.url}/tenant-a`] });
    open.push(proxy);
    expect((await rawPost(proxy.url, '/p/0/x/%2e%2e/v1/messages')).status).toBe(404);
    expect(gateway.requests.map((r) => r.url)).toEqual(['/tenant-a/v1/messages']);
  });
});

async function rawPost(base: string, path: string): Promise<{ status: number; body: string }> {
  const http = await import('node:http');
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const request = http.request({ hostname, port, path, method: 'POST', headers: { 'content-length': 2 } });
    request.on('error', reject);
    request.on('response', (response) => {
      let body = '';
      response.on('data', (d: Buffer) => {
        body += d.toString();
      });
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
    });
    request.end('{}');
  });
}
