import { once } from 'node:events';
import http from 'node:http';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { duplicateBody } from '../../../src/llm/proxy/tee.ts';
import type { Middleware } from '../../../src/llm/proxy/types.ts';
import { startProxy, type TestProxy } from './helpers/proxy.ts';
import { readText, signal } from './helpers/text-reader.ts';
import { echo, startUpstream, type TestUpstream } from './helpers/upstream.ts';

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
  upstream.handle(echo);
});

const event = (n: number) => `event: content_block_delta\ndata: {"n":${n}}\n\n`;
const streamRequest = JSON.stringify({
  model: 'claude-sonnet-4-5',
  max_tokens: 10,
  stream: true,
  messages: [{ role: 'user', content: 'hi' }],
});

/** Opens a streaming Messages request through the proxy and waits for the response head. */
async function openStream(url: string): Promise<http.IncomingMessage> {
  const client = http.request(`${url}/v1/messages?beta=true`, {
    method: 'POST',
    agent: false,
    headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(streamRequest) },
  });
  clients.push(client);
  client.end(streamRequest);
  const [response] = (await once(client, 'response')) as [http.IncomingMessage];
  return response;
}

describe('streaming', () => {
  it('relays SSE event by event: each reaches the agent before the target sends the next', async () => {
    const acks = [signal(), signal(), signal(), signal()];
    let targetFinished = false;
    upstream.handle(async (_received, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      res.flushHeaders();
      // Nothing more until the agent has the headers: proves they are not held back for the first chunk.
      await acks[0]!.promise;
      for (let n = 1; n <= 3; n++) {
        res.write(event(n));
        await acks[n]!.promise;
      }
      targetFinished = true;
      res.end();
    });
    proxy = await startProxy(upstream.url);
    const response = await openStream(proxy.url);
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('text/event-stream');
    const reader = readText(response);
    acks[0]!.resolve();
    for (let n = 1; n <= 3; n++) {
      await reader.until((text) => text.includes(event(n)));
      expect(targetFinished).toBe(false);
      acks[n]!.resolve();
    }
    expect(await reader.finished).toEqual({ kind: 'end' });
    expect(targetFinished).toBe(true);
    expect(reader.text).toBe(event(1) + event(2) + event(3));
  });

  it('keeps streaming while a response middleware inspects a copy', async () => {
    const release = signal();
    let copied: Promise<string> | undefined;
    const inspect: Middleware = {
      response: async (res) => {
        const { response, copy } = duplicateBody(res);
        copied = (async () => {
          let text = '';
          for await (const chunk of copy) text += String(chunk);
          return text;
        })();
        return response;
      },
    };
    upstream.handle(async (_received, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(event(1));
      await release.promise;
      res.end(event(2));
    });
    proxy = await startProxy(upstream.url, { middleware: [inspect] });
    const reader = readText(await openStream(proxy.url));
    await reader.until((text) => text.includes(event(1)));
    release.resolve();
    expect(await reader.finished).toEqual({ kind: 'end' });
    expect(await copied).toBe(event(1) + event(2));
  });
});
