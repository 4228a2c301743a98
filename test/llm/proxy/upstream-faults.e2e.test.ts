// Each way the provider can misbehave, one test: the agent gets a clean answer (an Anthropic-style
// error while nothing was sent, a cut stream after), the proxy logs it once and keeps serving.
import { once } from 'node:events';
import http from 'node:http';
import net from 'node:net';
import type { Readable } from 'node:stream';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createLoggingMiddleware } from '../../../src/llm/proxy/middleware/logging.ts';
import { duplicateBody } from '../../../src/llm/proxy/tee.ts';
import type { Middleware } from '../../../src/llm/proxy/types.ts';
import { type ClientResponse, errorOf, request } from './helpers/client.ts';
import { captureLogger, linesTagged } from './helpers/logs.ts';
import { startProxy, type TestProxy } from './helpers/proxy.ts';
import { readText, signal } from './helpers/text-reader.ts';
import { echo, freePort, startUpstream, type TestUpstream } from './helpers/upstream.ts';

/** A TCP upstream that speaks whatever a test writes: for answers node:http would refuse to send. */
type RawUpstream = { url: string; handle(next: (socket: net.Socket) => void): void; close(): Promise<void> };

async function startRawUpstream(): Promise<RawUpstream> {
  let handler: (socket: net.Socket) => void = () => {};
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
    // Answer once the request head is in, as a server would.
    let head = '';
    const onData = (data: Buffer) => {
      head += data.toString('latin1');
      if (!head.includes('\r\n\r\n')) return;
      socket.off('data', onData);
      socket.resume();
      handler(socket);
    };
    socket.on('data', onData);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as net.AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    handle: (next) => {
      handler = next;
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      server.close();
      await once(server, 'close');
    },
  };
}

const OK_ANSWER = 'HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 2\r\n\r\n{}';

let upstream: TestUpstream;
let raw: RawUpstream;
let proxy: TestProxy | undefined;
const clients: http.ClientRequest[] = [];

beforeAll(async () => {
  upstream = await startUpstream();
  raw = await startRawUpstream();
});
afterAll(async () => {
  await upstream.close();
  await raw.close();
});
afterEach(async () => {
  for (const client of clients.splice(0)) client.destroy();
  await proxy?.stop();
  proxy = undefined;
  upstream.handle(echo);
});

const streaming = JSON.stringify({
  model: 'claude-sonnet-4-5',
  max_tokens: 64,
  stream: true,
  messages: [{ role: 'user', content: 'hi' }],
});

/** The proxy as `--proxy` runs it: LoggingMiddleware first. */
async function proxyTo(url: string, options: Parameters<typeof startProxy>[1] = {}): Promise<TestProxy> {
  const { logger } = captureLogger();
  proxy = await startProxy(url, {
    ...options,
    middleware: [createLoggingMiddleware(logger), ...(options.middleware ?? [])],
  });
  return proxy;
}

function post(url: string): Promise<ClientResponse> {
  return request(`${url}/v1/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: streaming,
  });
}

/** Opens a streaming request and resolves with the response head. */
async function openStream(url: string): Promise<http.IncomingMessage> {
  const client = http.request(`${url}/v1/messages`, {
    method: 'POST',
    agent: false,
    headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(streaming) },
  });
  client.on('error', () => {});
  clients.push(client);
  client.end(streaming);
  const [response] = (await once(client, 'response')) as [http.IncomingMessage];
  return response;
}

function expectApiError(response: ClientResponse, status: number, text: RegExp) {
  expect(response.status).toBe(status);
  expect(errorOf(response)).toMatchObject({ type: 'error', error: { type: 'api_error' } });
  expect(errorOf(response).error.message).toMatch(text);
}

function errorCodes(p: TestProxy): unknown[] {
  return linesTagged(p.lines, '[PROXY-ERROR]').map((line) => line.code);
}

/** The proxy process is alive and forwards again once the upstream behaves. */
async function expectServingAgain(p: TestProxy, healthy: () => void) {
  expect((await request(`${p.url}/health`)).status).toBe(200);
  healthy();
  expect((await post(p.url)).status).toBe(200);
}

describe('the upstream fails before answering', () => {
  it('refuses connections: 502 UPSTREAM_UNREACHABLE', async () => {
    const p = await proxyTo(`http://127.0.0.1:${await freePort()}`);
    expectApiError(await post(p.url), 502, /unreachable \(ECONNREFUSED\)/);
    expect(errorCodes(p)).toEqual(['UPSTREAM_UNREACHABLE']);
    expect((await request(`${p.url}/health`)).status).toBe(200);
  });

  it('closes the connection without a word: 502 UPSTREAM_RESET', async () => {
    const p = await proxyTo(raw.url);
    raw.handle((socket) => socket.end());
    expectApiError(await post(p.url), 502, /closed the connection/);
    expect(errorCodes(p)).toEqual(['UPSTREAM_RESET']);
    await expectServingAgain(p, () => raw.handle((socket) => socket.end(OK_ANSWER)));
  });

  it('answers with something that is not HTTP: 502, and the garbage stays out of the log', async () => {
    const p = await proxyTo(raw.url);
    raw.handle((socket) => socket.end('SSH-2.0-OpenSSH_9.6 GARBAGE-IN-LOG\r\n\r\n'));
    expectApiError(await post(p.url), 502, /failed \(HPE_/);
    expect(errorCodes(p)).toEqual(['UPSTREAM_FAILED']);
    expect(JSON.stringify(p.lines)).not.toContain('GARBAGE-IN-LOG');
    await expectServingAgain(p, () => raw.handle((socket) => socket.end(OK_ANSWER)));
  });

  it('answers early and resets while the request body is still going out: a clean answer either way', async () => {
    const p = await proxyTo(raw.url);
    raw.handle((socket) => {
      socket.write(
        'HTTP/1.1 413 Payload Too Large\r\ncontent-type: application/json\r\ncontent-length: 2\r\n\r\n{}',
      );
      socket.destroy();
    });
    const big = Buffer.alloc(8 * 1024 * 1024, 'a');
    const response = await request(`${p.url}/v1/messages`, { method: 'POST', body: big });
    // Whether the upstream's 413 or its reset reaches the proxy first is the kernel's choice.
    if (response.status === 502) expectApiError(response, 502, /closed the connection/);
    else expect(response.status).toBe(413);
    await expectServingAgain(p, () => raw.handle((socket) => socket.end(OK_ANSWER)));
  });

  it('stalls before the headers: 504 after the idle timeout', async () => {
    const p = await proxyTo(upstream.url, { idleTimeoutMs: 150 });
    upstream.handle(() => {});
    expectApiError(await post(p.url), 504, /did not answer in time/);
    expect(errorCodes(p)).toEqual(['UPSTREAM_TIMEOUT']);
    await expectServingAgain(p, () => upstream.handle(echo));
  });
});

describe('the upstream fails while the answer streams', () => {
  /** Sends the head and a first event, then does `then` once the agent has seen that event. */
  function streamThen(then: (res: http.ServerResponse, req: http.IncomingMessage) => void) {
    const agentSawFirst = signal();
    upstream.handle(async (_received, res, req) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('event: message_start\ndata: {"type":"message_start"}\n\n');
      await agentSawFirst.promise;
      then(res, req);
    });
    return agentSawFirst;
  }

  async function expectCutAfterFirstEvent(p: TestProxy, agentSawFirst: { resolve(): void }) {
    const reader = readText(await openStream(p.url));
    await reader.until((text) => text.includes('message_start'));
    agentSawFirst.resolve();
    expect((await reader.finished).kind).toBe('error');
  }

  it('resets mid-stream: the agent sees the stream cut', async () => {
    const p = await proxyTo(upstream.url);
    const agentSawFirst = streamThen((_res, req) => req.socket.destroy());
    await expectCutAfterFirstEvent(p, agentSawFirst);
    expect(errorCodes(p)).toEqual(['UPSTREAM_RESET']);
    await expectServingAgain(p, () => upstream.handle(echo));
  });

  it('resets mid-stream while a response middleware holds an unread copy: no crash', async () => {
    const copies: Readable[] = [];
    const inspector: Middleware = {
      name: 'inspector',
      response: (res) => {
        const { response, copy } = duplicateBody(res);
        copies.push(copy); // never read, never listened to
        return response;
      },
    };
    const p = await proxyTo(upstream.url, { middleware: [inspector] });
    const agentSawFirst = streamThen((_res, req) => req.socket.destroy());
    await expectCutAfterFirstEvent(p, agentSawFirst);
    expect(copies[0]?.destroyed).toBe(true);
    await expectServingAgain(p, () => upstream.handle(echo));
  });

  it('stalls mid-stream: the stream is cut after the idle timeout, and the log says it timed out', async () => {
    const p = await proxyTo(upstream.url, { idleTimeoutMs: 200 });
    const agentSawFirst = streamThen(() => {});
    await expectCutAfterFirstEvent(p, agentSawFirst);
    expect(errorCodes(p)).toEqual(['UPSTREAM_TIMEOUT']);
    expect(String(linesTagged(p.lines, '[PROXY-ERROR]')[0]?.msg)).toContain('Stream cut');
    await expectServingAgain(p, () => upstream.handle(echo));
  });

  it('closes before the declared length: the agent sees the answer cut, not a short one', async () => {
    const p = await proxyTo(raw.url);
    raw.handle((socket) =>
      socket.end(
        'HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 1000\r\n\r\n{"id":"msg_',
      ),
    );
    const reader = readText(await openStream(p.url));
    expect((await reader.finished).kind).toBe('error');
    expect(reader.text).toBe('{"id":"msg_');
    expect(errorCodes(p)).toEqual(['UPSTREAM_RESET']);
    await expectServingAgain(p, () => raw.handle((socket) => socket.end(OK_ANSWER)));
  });

  it('closes a chunked stream without its last chunk: the agent sees the stream cut', async () => {
    const p = await proxyTo(raw.url);
    const event = 'event: ping\ndata: {"type":"ping"}\n\n';
    raw.handle((socket) =>
      socket.end(
        `HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n${event.length.toString(16)}\r\n${event}\r\n`,
      ),
    );
    const reader = readText(await openStream(p.url));
    expect((await reader.finished).kind).toBe('error');
    expect(reader.text).toBe(event);
    expect(errorCodes(p)).toEqual(['UPSTREAM_RESET']);
    await expectServingAgain(p, () => raw.handle((socket) => socket.end(OK_ANSWER)));
  });

  it('breaks its chunked framing mid-stream: the agent sees the stream cut', async () => {
    const p = await proxyTo(raw.url);
    const event = 'event: ping\ndata: {"type":"ping"}\n\n';
    raw.handle((socket) =>
      socket.end(
        `HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n${event.length.toString(16)}\r\n${event}\r\nnot-hex\r\n`,
      ),
    );
    const reader = readText(await openStream(p.url));
    expect((await reader.finished).kind).toBe('error');
    expect(errorCodes(p)).toHaveLength(1);
    await expectServingAgain(p, () => raw.handle((socket) => socket.end(OK_ANSWER)));
  });
});

describe('the upstream sends garbage in a well-formed answer', () => {
  it('garbage SSE is relayed byte for byte (the proxy does not parse streams) and nothing breaks', async () => {
    const garbage = Buffer.concat([
      Buffer.from('event: message_start\ndata: {not json\n\n'),
      Buffer.from([0x00, 0xff, 0xfe, 0xc3, 0x28, 0x0a]), // NUL and invalid UTF-8
      Buffer.from('data: \n\n:comment only\n\nevent:\n\nevent: message_stop\n'),
      Buffer.alloc(256 * 1024, 'x'), // a quarter MiB line with no end
    ]);
    const p = await proxyTo(upstream.url);
    upstream.handle((_received, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(garbage);
    });
    const response = await post(p.url);
    expect(response.status).toBe(200);
    expect(response.body.equals(garbage)).toBe(true);
    expect(errorCodes(p)).toEqual([]);
    await expectServingAgain(p, () => upstream.handle(echo));
  });

  it('a non-JSON error body with an error status is relayed as it came', async () => {
    const p = await proxyTo(upstream.url);
    upstream.handle((_received, res) => {
      res.writeHead(503, { 'content-type': 'text/html' });
      res.end('<html>Service Unavailable</html>');
    });
    const response = await post(p.url);
    expect(response.status).toBe(503);
    expect(response.body.toString()).toBe('<html>Service Unavailable</html>');
    await expectServingAgain(p, () => upstream.handle(echo));
  });
});
