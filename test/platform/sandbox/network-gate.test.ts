import { existsSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import { type AddressInfo, connect } from 'node:net';
import { dirname } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { SandboxDenial } from '../../../src/platform/sandbox/launch.ts';
import { type NetworkGate, startNetworkGate } from '../../../src/platform/sandbox/network-gate.ts';

const servers: Server[] = [];
const gates: NetworkGate[] = [];
afterEach(async () => {
  await Promise.all(gates.splice(0).map((g) => g.close()));
  for (const s of servers.splice(0)) s.close();
});

async function listen(server: Server): Promise<number> {
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

async function gate(route: string, denied: SandboxDenial[] = []): Promise<NetworkGate> {
  const g = await startNetworkGate({ route, allow: [], onDenied: (d) => denied.push(d) });
  gates.push(g);
  return g;
}

describe('startNetworkGate', () => {
  it("streams the route's answer as it comes (SSE), not once it is complete", async () => {
    let second: (() => void) | undefined;
    const port = await listen(
      createServer((_req, res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write('data: one\n\n');
        second = () => res.end('data: two\n\n');
      }),
    );
    const g = await gate(`http://127.0.0.1:${port}/p/1`);
    const chunks: string[] = [];
    await new Promise<void>((resolve, reject) => {
      const req = request({ socketPath: g.socket, path: '/p/1/v1/messages', method: 'POST' }, (res) => {
        expect(res.headers['content-type']).toBe('text/event-stream');
        res.setEncoding('utf8');
        res.on('data', (text: string) => {
          chunks.push(text);
          // The second event is sent only once the first has come through the gate.
          if (chunks.length === 1) second?.();
        });
        res.on('end', resolve);
      });
      req.on('error', reject);
      req.end('{}');
    });
    expect(chunks.join('')).toBe('data: one\n\ndata: two\n\n');
  });

  it("reads a CONNECT tunnel to a plain-http route itself (Node's proxy agent): the route's path rules hold inside", async () => {
    const port = await listen(createServer((req, res) => res.end(`route got ${req.url}`)));
    const denied: SandboxDenial[] = [];
    const g = await gate(`http://127.0.0.1:${port}/p/1`, denied);
    const socket = connect(g.socket);
    socket.setEncoding('utf8');
    let text = '';
    socket.on('data', (chunk: string) => {
      text += chunk;
    });
    const until = (pattern: RegExp) =>
      new Promise<void>((resolve, reject) => {
        const look = () => (pattern.test(text) ? resolve() : undefined);
        socket.on('data', look);
        socket.once('close', () => (pattern.test(text) ? resolve() : reject(new Error(text))));
        look();
      });
    socket.write(`CONNECT 127.0.0.1:${port} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`);
    await until(/200 Connection Established\r\n\r\n/);
    socket.write(`GET /p/1/v1/messages HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`);
    await until(/route got \/v1\/messages|route got \/p\/1\/v1\/messages/);
    socket.write(`GET /p/2/v1/messages HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`);
    await until(/403 Forbidden/);
    socket.destroy();
    expect(text).toMatch(/HTTP\/1\.1 200 OK[\s\S]*route got/);
    expect(denied).toHaveLength(1);
    expect(denied[0]).toMatchObject({
      kind: 'request',
      target: `127.0.0.1:${port}`,
      path: '/p/2/v1/messages',
    });
  });

  it('sees a non-loopback route on port 3128, a loopback http one on its own port', async () => {
    expect((await gate('https://api.anthropic.com')).port).toBe(3128);
    expect((await gate('http://127.0.0.1:7123/t/x')).port).toBe(7123);
  });

  it('forwards many requests over one kept-alive upstream socket without piling up listeners (trial 30)', async () => {
    const upstream = new Set<unknown>();
    const port = await listen(
      createServer((req, res) => {
        upstream.add(req.socket);
        res.end('ok');
      }),
    );
    const g = await gate(`http://127.0.0.1:${port}/p/1`);
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.name);
    process.on('warning', onWarning);
    try {
      for (let i = 0; i < 15; i++) {
        const status = await new Promise<number | undefined>((resolve, reject) => {
          const req = request({ socketPath: g.socket, path: '/p/1/v1/messages', method: 'POST' }, (res) => {
            res.resume();
            res.on('end', () => resolve(res.statusCode));
          });
          req.on('error', reject);
          req.end('{}');
        });
        expect(status).toBe(200);
      }
      // Warnings are emitted on the next tick.
      await new Promise((r) => setImmediate(r));
    } finally {
      process.off('warning', onWarning);
    }
    expect(upstream.size).toBe(1);
    expect(warnings).not.toContain('MaxListenersExceededWarning');
  });

  it('answers a refusal 403 with why, and reports it', async () => {
    const denied: SandboxDenial[] = [];
    const g = await gate('http://127.0.0.1:7123/t/x', denied);
    const answer = await new Promise<{ status?: number; body: string }>((resolve, reject) => {
      const req = request({ socketPath: g.socket, path: 'http://example.com/upload' }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (t: string) => {
          body += t;
        });
        res.on('end', () => resolve({ status: res.statusCode, body }));
      });
      req.on('error', reject);
      req.end();
    });
    expect(answer).toEqual({
      status: 403,
      body: 'Refused by the Ribosome sandbox: GET example.com:80/upload: not in sandbox.network.allow\n',
    });
    expect(denied).toEqual([
      {
        kind: 'request',
        target: 'example.com:80',
        method: 'GET',
        path: '/upload',
        reason: 'not in sandbox.network.allow',
      },
    ]);
  });

  it('close() ends open connections and removes its socket and directory', async () => {
    let arrived: () => void = () => {};
    const reached = new Promise<void>((resolve) => {
      arrived = resolve;
    });
    const port = await listen(createServer(() => arrived())); // never answers
    const g = await gate(`http://127.0.0.1:${port}`);
    const failed = new Promise<string>((resolve) => {
      const req = request({ socketPath: g.socket, path: '/v1/messages' });
      req.on('error', (error) => resolve(error.message));
      req.end();
    });
    await reached;
    await g.close();
    expect(await failed).toMatch(/socket hang up|ECONNRESET/);
    expect(existsSync(g.socket)).toBe(false);
    expect(existsSync(dirname(g.socket))).toBe(false);
  });
});
