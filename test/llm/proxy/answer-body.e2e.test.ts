/**
 * The target's answer body: written to the agent as it comes when no response middleware touches it,
 * through a stream once one reads or replaces it, synchronously or not, and in both cases held back
 * by an agent that reads slowly.
 */
import { once } from 'node:events';
import http from 'node:http';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { Middleware } from '../../../src/llm/proxy/types.ts';
import { request } from './helpers/client.ts';
import { proxyFixture } from './helpers/fixture.ts';

const fixture = proxyFixture();

const post = (url: string, body: string) => request(url, { method: 'POST', body });

describe('synchronous response middleware', () => {
  it('leaves the body alone: the target bytes and length reach the agent', async () => {
    const statusOnly: Middleware = { response: (res) => ({ ...res, status: 203 }) };
    const proxy = await fixture.start({ middleware: [{ response: (res) => res }, statusOnly] });
    const response = await post(`${proxy.url}/v1/x`, 'the original bytes');
    expect(response.status).toBe(203);
    expect(response.body.toString()).toBe('the original bytes');
    expect(response.headers['content-length']).toBe('18');
  });

  it('sets the body in place: the agent gets the new bytes with their length', async () => {
    const replace: Middleware = {
      response: (res) => {
        res.body = 'set in place';
        return undefined;
      },
    };
    const proxy = await fixture.start({ middleware: [replace] });
    const response = await post(`${proxy.url}/v1/x`, 'original');
    expect(response.body.toString()).toBe('set in place');
    expect(response.headers['content-length']).toBe('12');
  });

  it('reads the body as a stream and hands it on: the agent gets every byte', async () => {
    let seen: unknown;
    const look: Middleware = {
      response: (res) => {
        seen = res.body;
        return res;
      },
    };
    const proxy = await fixture.start({ middleware: [look] });
    const body = 'x'.repeat(300_000);
    const response = await post(`${proxy.url}/v1/x`, body);
    expect(seen).toBeInstanceOf(Readable);
    expect(response.body.toString()).toBe(body);
    expect(response.headers['content-length']).toBe(String(body.length));
  });

  it('shows the body in a copy of the response, as data', async () => {
    let keys: string[] = [];
    const copy: Middleware = {
      response: (res) => {
        const copied = { ...res };
        keys = Object.keys(copied);
        return copied;
      },
    };
    const proxy = await fixture.start({ middleware: [copy] });
    const response = await post(`${proxy.url}/v1/x`, 'copied');
    expect(keys).toEqual(['status', 'headers', 'body']);
    expect(response.body.toString()).toBe('copied');
  });
});

describe('an agent that reads slowly', () => {
  const MiB = 1024 * 1024;
  const TOTAL = 256 * MiB;

  /**
   * The target writes TOTAL bytes as fast as the proxy takes them; `written` counts them. `settled`
   * resolves when it finished, passed 64 MiB, or took no byte more for half a second.
   */
  function flood() {
    let settle = () => {};
    const settled = new Promise<void>((resolve) => {
      settle = resolve;
    });
    const state = { written: 0, finished: false, settled };
    const chunk = Buffer.alloc(MiB, 'z');
    fixture.upstream.handle((_received, res) => {
      res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': TOTAL });
      const pump = () => {
        while (state.written < TOTAL) {
          state.written += chunk.length;
          if (state.written >= 64 * MiB) settle();
          if (!res.write(chunk)) {
            // The proxy stopped taking bytes (for now).
            const timer = setTimeout(settle, 500);
            res.once('drain', () => {
              clearTimeout(timer);
              pump();
            });
            return;
          }
        }
        res.end(() => {
          state.finished = true;
          settle();
        });
      };
      pump();
    });
    return state;
  }

  it.each([
    ['untouched', [] as Middleware[]],
    ['read by a middleware', [{ response: async (res) => res } satisfies Middleware]],
  ])(
    'holds the target back (%s), then delivers every byte',
    async (_name, middleware) => {
      const state = flood();
      const proxy = await fixture.start({ middleware });
      const { port } = new URL(proxy.url);
      const agent = http.request({ host: '127.0.0.1', port, method: 'POST', path: '/v1/big', agent: false });
      agent.end('go');
      const [response] = (await once(agent, 'response')) as [http.IncomingMessage];
      response.pause();
      // Without backpressure the proxy would take all 256 MiB at loopback speed while the agent reads
      // none; with it, the target stalls once the socket buffers and the proxy's stream are full.
      await state.settled;
      expect(state.finished).toBe(false);
      expect(state.written).toBeLessThan(64 * MiB);
      let received = 0;
      response.on('data', (chunk: Buffer) => {
        received += chunk.length;
      });
      response.resume();
      await once(response, 'end');
      expect(received).toBe(TOTAL);
    },
    60_000,
  );
});
