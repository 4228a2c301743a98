import { afterEach, describe, expect, it } from 'vitest';
import { type MockProvider, startMockProvider } from '../../../src/llm/mock-provider/server.ts';
import { startProxy, type TestProxy } from './helpers/proxy.ts';

/** Routes: `/p/<n>/...` reaches provider n; every other path, and every path without routes, the target. */

const open: Array<MockProvider | TestProxy> = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((o) => o.stop()));
});

async function provider(): Promise<MockProvider> {
  const p = await startMockProvider({ script: { turns: [], whenExhausted: { content: [{ text: 'hi' }] } } });
  open.push(p);
  return p;
}

const ask = (url: string) =>
  fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': 'k' },
    body: JSON.stringify({ model: 'm', max_tokens: 5, messages: [{ role: 'user', content: 'hi' }] }),
  });

describe('proxy routes', () => {
  it('a route prefix picks the provider and is stripped; middleware sees every route', async () => {
    const main = await provider();
    const gateway = await provider();
    const seen: string[] = [];
    const proxy = await startProxy(main.url, {
      routes: [`${gateway.url}/base`],
      middleware: [{ name: 'spy', readOnly: true, request: (r) => void seen.push(r.url) }],
    });
    open.push(proxy);
    expect((await ask(`${proxy.url}/p/0/v1/messages`)).status).toBe(404);
    expect(gateway.requests.map((r) => r.url)).toEqual(['/base/v1/messages']);
    expect((await ask(`${proxy.url}/v1/messages`)).status).toBe(200);
    // A route that does not exist is an ordinary path of the main target.
    expect((await ask(`${proxy.url}/p/7/v1/messages`)).status).toBe(404);
    expect(main.requests.map((r) => r.url)).toEqual(['/v1/messages', '/p/7/v1/messages']);
    expect(seen).toEqual(['/v1/messages', '/v1/messages', '/p/7/v1/messages']);
    expect((await fetch(`${proxy.url}/health`)).status).toBe(200);
    const listening = proxy.lines.find((l) => l.msg === '[PROXY] listening');
    expect(listening?.routes).toEqual([`${new URL(gateway.url).origin}/base`]);
  });

  it('without routes a /p/ path is forwarded as it is', async () => {
    const main = await provider();
    const proxy = await startProxy(main.url);
    open.push(proxy);
    await ask(`${proxy.url}/p/0/v1/messages`);
    expect(main.requests.map((r) => r.url)).toEqual(['/p/0/v1/messages']);
    expect(proxy.lines.find((l) => l.msg === '[PROXY] listening')).not.toHaveProperty('routes');
  });
});
