/**
 * The target's answer body: written to the agent as it comes when no response middleware touches it,
 * through a stream once one reads or replaces it, synchronously or not, and in both cases held back
 * by an agent that reads slowly.
 */
import { once } from 'node:events';
import http from 'node:http';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { duplicateBody } from '../../../src/llm/proxy/tee.ts';
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

/** The target sends one SSE event, then whatever `rest` does once it resolves (never: the stream stays open). */
function sseThen(rest: (res: http.ServerResponse) => Promise<void> = () => new Promise(() => {})) {
  const closed = { promise: undefined as Promise<unknown> | undefined };
  fixture.upstream.handle(async (_received, res, req) => {
    closed.promise = once(req.socket, 'close');
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write('data: first\n\n');
    await rest(res);
  });
  return closed;
}

/** Reads the first chunk of an answer, then hangs up. */
async function hangUpAfterFirstChunk(url: string): Promise<void> {
  const agent = http.request(url, { method: 'POST', agent: false });
  agent.on('error', () => {});
  agent.end('go');
  const [response] = (await once(agent, 'response')) as [http.IncomingMessage];
  await once(response, 'data');
  agent.destroy();
}

describe('found in trials', () => {
  it('a middleware that reads the body after it returned takes nothing from the agent', async () => {
    let lateRead: () => void = () => {};
    const read = new Promise<void>((resolve) => {
      lateRead = resolve;
    });
    let late: unknown;
    const later: Middleware = {
      response: (res) => {
        setImmediate(() => {
          late = res.body;
          lateRead();
        });
        return undefined;
      },
    };
    sseThen(async (res) => {
      await read;
      res.end('data: second\n\n');
    });
    const proxy = await fixture.start({ middleware: [later] });
    const response = await post(`${proxy.url}/v1/x`, 'go');
    expect(response.body.toString()).toBe('data: first\n\ndata: second\n\n');
    expect(late).toBeInstanceOf(Readable);
  });

  it('`delete response.body` sends no body, as before', async () => {
    const drop: Middleware = {
      response: (res) => {
        delete res.body;
        return res;
      },
    };
    const proxy = await fixture.start({ middleware: [drop] });
    const response = await post(`${proxy.url}/v1/x`, 'original');
    expect(response.body.length).toBe(0);
    expect(response.headers['content-length']).toBe('0');
  });

  it("an inspector's copy fails when the agent hangs up mid-stream, and the target hears it", async () => {
    let copyEnded: Promise<string> | undefined;
    const inspect: Middleware = {
      response: async (res) => {
        const { response, copy } = duplicateBody(res);
        copyEnded = (async () => {
          try {
            for await (const _chunk of copy);
            return 'ended';
          } catch {
            return 'failed';
          }
        })();
        return response;
      },
    };
    const target = sseThen();
    const proxy = await fixture.start({ middleware: [inspect] });
    await hangUpAfterFirstChunk(`${proxy.url}/v1/x`);
    expect(await copyEnded).toBe('failed');
    await target.promise;
  });

  it('a recording hears a stream the agent cut as cut', async () => {
    let ended: (how: string) => void = () => {};
    const end = new Promise<string>((resolve) => {
      ended = resolve;
    });
    const tap = { head() {}, chunk() {}, end: (how: string) => ended(how) };
    sseThen();
    const proxy = await fixture.start({ cassette: { exchange: () => ({ kind: 'forward', tap }) } });
    await hangUpAfterFirstChunk(`${proxy.url}/v1/x`);
    expect(await end).toBe('cut');
  });

  it('a target that resets while a middleware holds an unread copy: a 502, no stray error', async () => {
    fixture.upstream.handle((_received, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: first\n\n');
      setImmediate(() => res.socket?.destroy());
    });
    const inspect: Middleware = {
      response: async (res) => {
        const { response, copy } = duplicateBody(res);
        // Returns only once the target's reset has reached the proxy.
        await once(copy, 'error');
        return response;
      },
    };
    const proxy = await fixture.start({ middleware: [inspect] });
    const response = await post(`${proxy.url}/v1/x`, 'go');
    expect(response.status).toBe(502);
  });

  it('a long answer a middleware replaced is cut at the target, not read to its end', async () => {
    const target = sseThen();
    const replace: Middleware = {
      response: (res) => {
        res.body = 'replaced';
        return res;
      },
    };
    const proxy = await fixture.start({ middleware: [replace] });
    const response = await post(`${proxy.url}/v1/x`, 'go');
    expect(response.body.toString()).toBe('replaced');
    await target.promise;
  });
});
