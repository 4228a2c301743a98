import { once } from 'node:events';
import http from 'node:http';
import net from 'node:net';
import v8 from 'node:v8';
import vm from 'node:vm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createLoggingMiddleware } from '../../../src/llm/proxy/middleware/logging.ts';
import type { Middleware } from '../../../src/llm/proxy/types.ts';
import { type ClientResponse, errorOf, request } from './helpers/client.ts';
import { captureLogger } from './helpers/logs.ts';
import { startProxy, type TestProxy } from './helpers/proxy.ts';
import { signal } from './helpers/text-reader.ts';
import { echo, startUpstream, type TestUpstream } from './helpers/upstream.ts';

const KiB = 1024;
const MiB = 1024 * KiB;

let upstream: TestUpstream;
let proxy: TestProxy | undefined;
const sockets: net.Socket[] = [];

beforeAll(async () => {
  upstream = await startUpstream();
});
afterAll(async () => {
  await upstream.close();
});
afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  await proxy?.stop();
  proxy = undefined;
  upstream.received.length = 0;
  upstream.handle(echo);
});

/** A Messages request of about `bytes` bytes (one long user message). */
function messagesBody(bytes: number, text = 'a'): Buffer {
  const head = '{"model":"m","max_tokens":5,"messages":[{"role":"user","content":"';
  const tail = '"}]}';
  return Buffer.concat([
    Buffer.from(head),
    Buffer.alloc(bytes - head.length - tail.length, text),
    Buffer.from(tail),
  ]);
}

function post(url: string, body: Buffer, headers: http.OutgoingHttpHeaders = {}) {
  return request(`${url}/v1/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body,
  });
}

async function expectStillServing(p: TestProxy) {
  expect((await request(`${p.url}/health`)).status).toBe(200);
  expect((await post(p.url, messagesBody(1000))).status).toBe(200);
}

function portOf(url: string): number {
  return Number(new URL(url).port);
}

/** A raw connection to the proxy: what it received, and a promise for its closing. */
async function connect(url: string) {
  const socket = net.connect(portOf(url), '127.0.0.1');
  sockets.push(socket);
  socket.on('error', () => {}); // a reset while still sending is fine; what arrived counts
  let received = '';
  socket.on('data', (data: Buffer) => {
    received += data.toString('latin1');
  });
  const closed = new Promise((resolve) => socket.once('close', resolve));
  await once(socket, 'connect');
  return {
    socket,
    closed,
    get received() {
      return received;
    },
  };
}

/** Resolves on the first of: the socket can take more, it got data, it closed. */
function writable(socket: net.Socket): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      socket.off('drain', done);
      socket.off('data', done);
      socket.off('close', done);
      resolve();
    };
    socket.once('drain', done);
    socket.once('data', done);
    socket.once('close', done);
  });
}

function expectApiError(response: ClientResponse, status: number, type: string, text: RegExp) {
  expect(response.status).toBe(status);
  expect(response.headers['content-type']).toBe('application/json');
  const body = errorOf(response);
  expect(body).toMatchObject({ type: 'error', error: { type } });
  expect(body.error.message).toMatch(text);
}

describe('the size of one request body', () => {
  it('a declared Content-Length over the limit gets 413 before any body byte is sent, then the connection closes', async () => {
    proxy = await startProxy(upstream.url, { maxBodyBytes: MiB });
    const connection = await connect(proxy.url);
    connection.socket.write(
      `POST /v1/messages?beta=true HTTP/1.1\r\nhost: proxy.test\r\ncontent-type: application/json\r\ncontent-length: ${2 * MiB}\r\n\r\n`,
    );
    await connection.closed;
    const [head, body] = connection.received.split('\r\n\r\n');
    expect(head).toMatch(/^HTTP\/1\.1 413 /);
    expect(head?.toLowerCase()).toContain('connection: close');
    expect(JSON.parse(body ?? '')).toMatchObject({
      type: 'error',
      error: { type: 'request_too_large', message: expect.stringMatching(/limit of 1048576 bytes/) },
    });
    expect(upstream.received).toEqual([]);
    await expectStillServing(proxy);
  });

  it('a chunked body is counted as it streams: 413 once past the limit, the rest unread, the connection closed', async () => {
    proxy = await startProxy(upstream.url, { maxBodyBytes: MiB });
    const connection = await connect(proxy.url);
    const { socket } = connection;
    socket.write('POST /v1/messages HTTP/1.1\r\nhost: proxy.test\r\ntransfer-encoding: chunked\r\n\r\n');
    const chunk = Buffer.alloc(64 * KiB, 'a');
    const frame = Buffer.concat([
      Buffer.from(`${chunk.length.toString(16)}\r\n`),
      chunk,
      Buffer.from('\r\n'),
    ]);
    // Had the proxy kept reading, this would go on to 64 MiB; it answers after about 1 MiB
    // (plus what socket buffers hold) and closes.
    let sent = 0;
    while (connection.received === '' && !socket.destroyed && sent < 64 * MiB) {
      sent += chunk.length;
      if (!socket.write(frame)) await writable(socket);
    }
    await connection.closed;
    expect(sent).toBeLessThan(64 * MiB);
    expect(connection.received).toMatch(/^HTTP\/1\.1 413 /);
    expect(connection.received).toContain('request_too_large');
    expect(upstream.received).toEqual([]);
    await expectStillServing(proxy);
  });

  it('a body of exactly the limit passes, declared or chunked', async () => {
    proxy = await startProxy(upstream.url, { maxBodyBytes: MiB });
    const body = messagesBody(MiB);
    const declared = await post(proxy.url, body);
    expect(declared.status).toBe(200);
    expect(declared.body.equals(body)).toBe(true);
    const chunked = await post(proxy.url, body, { 'transfer-encoding': 'chunked' });
    expect(chunked.status).toBe(200);
    expect(chunked.body.equals(body)).toBe(true);
  });
});

describe('request bytes in flight across requests', () => {
  /** An upstream that holds every request until `release` (then echoes), and says how many it holds. */
  function holdingUpstream() {
    const release = signal();
    upstream.handle(async (received, res, req) => {
      await release.promise;
      echo(received, res, req);
    });
    return release;
  }

  it('concurrent large bodies past the in-flight limit: the ones that fit succeed, the others get 503 with retry-after', async () => {
    proxy = await startProxy(upstream.url, { maxBodyBytes: MiB, maxInFlightBytes: 2.5 * MiB });
    const release = holdingUpstream();
    const body = messagesBody(MiB);
    const settled: ClientResponse[] = [];
    const all = Array.from({ length: 5 }, () =>
      post(proxy!.url, body).then((response) => {
        settled.push(response);
        return response;
      }),
    );
    // Two bodies fit in 2.5 MiB and reach the upstream, which holds them; the other three are refused.
    await expect.poll(() => settled.length, { timeout: 20_000 }).toBe(3);
    await expect.poll(() => upstream.received.length, { timeout: 20_000 }).toBe(2);
    for (const refused of settled) {
      expectApiError(refused, 503, 'api_error', /in flight would pass the limit of 2621440 bytes/);
      expect(refused.headers['retry-after']).toBe('1');
      expect(refused.headers.connection).toBe('close');
    }
    release.resolve();
    const statuses = (await Promise.all(all)).map((response) => response.status).sort();
    expect(statuses).toEqual([200, 200, 503, 503, 503]);
    expect(proxy.lines.filter((line) => line.code === 'PROXY_BUSY')).toHaveLength(3);

    // Every byte was given back: two more large bodies fit again, together.
    upstream.handle(echo);
    const again = await Promise.all([post(proxy.url, body), post(proxy.url, body)]);
    expect(again.map((response) => response.status)).toEqual([200, 200]);
    await expectStillServing(proxy);
  });

  it('a chunked body is refused with 503 once it would pass the in-flight limit', async () => {
    proxy = await startProxy(upstream.url, { maxBodyBytes: MiB, maxInFlightBytes: 1.5 * MiB });
    const release = holdingUpstream();
    const held = post(proxy.url, messagesBody(MiB));
    await expect.poll(() => upstream.received.length, { timeout: 20_000 }).toBe(1);
    const chunked = await post(proxy.url, messagesBody(MiB), { 'transfer-encoding': 'chunked' });
    expectApiError(chunked, 503, 'api_error', /in flight/);
    expect(chunked.headers['retry-after']).toBe('1');
    release.resolve();
    expect((await held).status).toBe(200);
    await expectStillServing(proxy);
  });

  it('an agent that leaves before its answer gives its share back', async () => {
    proxy = await startProxy(upstream.url, { maxBodyBytes: MiB, maxInFlightBytes: 1.5 * MiB });
    const upstreamSawClose = signal();
    upstream.handle((_received, res) => {
      res.on('close', upstreamSawClose.resolve);
    });
    const body = messagesBody(MiB);
    const client = http.request(`${proxy.url}/v1/messages`, {
      method: 'POST',
      agent: false,
      headers: { 'content-length': body.length },
    });
    client.on('error', () => {});
    client.end(body);
    await expect.poll(() => upstream.received.length, { timeout: 20_000 }).toBe(1);
    client.destroy();
    await upstreamSawClose.promise;
    upstream.handle(echo);
    // Were the first MiB still counted, this one would not fit in 1.5 MiB.
    await expect.poll(async () => (await post(proxy!.url, body)).status, { timeout: 20_000 }).toBe(200);
  });
});

describe('memory after the exchange', () => {
  it('keeps no reference to a body or its parsed form once the exchange is over, whatever its end', async () => {
    v8.setFlagsFromString('--expose-gc');
    const gc = vm.runInNewContext('gc') as () => void;
    const bodies: Array<WeakRef<object>> = [];
    const spy: Middleware = {
      name: 'spy',
      readOnly: true,
      request: (req, context) => {
        bodies.push(new WeakRef(context.rawBody));
        if (req.vendorRequestData) bodies.push(new WeakRef(req.vendorRequestData));
        return req;
      },
    };
    const upstreamSawClose = signal();
    upstream.handle((received, res, req) => {
      if (received.url === '/v1/messages?reset') req.socket.destroy();
      else if (received.url === '/v1/messages?hold') res.on('close', upstreamSawClose.resolve);
      else echo(received, res, req);
    });
    const { logger } = captureLogger();
    proxy = await startProxy(upstream.url, { middleware: [createLoggingMiddleware(logger), spy] });
    const url = proxy.url;
    const big = messagesBody(MiB);

    expect((await post(url, big)).status).toBe(200);
    const countTokens = await request(`${url}/v1/messages/count_tokens`, { method: 'POST', body: big });
    expect(countTokens.status).toBe(200);
    const malformed = await request(`${url}/v1/messages`, {
      method: 'POST',
      body: Buffer.concat([big, Buffer.from('not json')]),
    });
    expect(malformed.status).toBe(200);
    expect((await request(`${url}/v1/messages?reset`, { method: 'POST', body: big })).status).toBe(502);
    const leaving = http.request(`${url}/v1/messages?hold`, {
      method: 'POST',
      agent: false,
      headers: { 'content-length': big.length },
    });
    leaving.on('error', () => {});
    leaving.end(big);
    const holding = () => upstream.received.some((received) => received.url.endsWith('?hold'));
    await expect.poll(holding, { timeout: 20_000 }).toBe(true);
    leaving.destroy();
    await upstreamSawClose.promise;

    expect(bodies.length).toBe(8); // 5 raw bodies, 3 parsed Messages requests
    await expect
      .poll(
        () => {
          gc();
          return bodies.filter((body) => body.deref() !== undefined).length;
        },
        { timeout: 20_000 },
      )
      .toBe(0);
  });
});
