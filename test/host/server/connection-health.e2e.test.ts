import { request } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { RibosomeClient } from '../../../src/core/client/index.ts';
import { startInProcess } from '../../helpers/in-process.ts';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function server(limits: Parameters<typeof startInProcess>[0] = {}) {
  const s = await startInProcess(limits);
  cleanups.push(() => s.cleanup());
  return s;
}
async function client(url: string, mode: 'readonly' | 'readandwrite' = 'readonly') {
  const c = await RibosomeClient.connect(url, { mode });
  cleanups.push(() => c.close());
  return c;
}

function http(url: string, method: string, body?: string) {
  return new Promise<{ status: number; headers: Record<string, unknown>; body: string }>(
    (resolve, reject) => {
      const req = request(url.replace('ws://', 'http://'), { method }, (res) => {
        let text = '';
        res.on('data', (d) => {
          text += d;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
      });
      req.on('error', reject);
      req.end(body);
    },
  );
}

describe('plain HTTP (spec 1, 4.1)', () => {
  it.each(['GET', 'POST', 'OPTIONS', 'HEAD', 'PUT'])(
    '%s gets 400 with CORS headers and the WebSocket address',
    async (method) => {
      const s = await server();
      const watcher = await client(s.url);
      const res = await http(`${s.url}/some/path?x=1`, method, method === 'POST' ? '{"a":1}' : undefined);
      expect(res.status).toBe(400);
      expect(res.headers['access-control-allow-origin']).toBe('*');
      expect(String(res.headers['access-control-allow-methods'])).toContain('GET');
      expect(res.headers['content-type']).toMatch(/application\/json/);
      if (method === 'HEAD') {
        expect(res.body).toBe('');
      } else {
        const body = JSON.parse(res.body);
        expect(body.websocket).toBe(s.url);
        expect(body.message).toContain(s.url);
      }
      // A connected client is not disturbed.
      watcher.send('ping');
      await watcher.next('pong');
      expect(watcher.state).toBe('open');
    },
  );
});

describe('origin check', () => {
  it('refuses pages of other sites and of other local servers with 403; --allow-origin lets one in', async () => {
    const s = await server({ allowOrigins: ['https://dashboard.example'] });
    for (const origin of ['https://evil.example', 'http://localhost:5173', 'http://127.0.0.1:3000', 'null'])
      await expect(RibosomeClient.connect(s.url, { mode: 'readonly', origin }), origin).rejects.toThrow(
        /403/,
      );
    const allowed = await RibosomeClient.connect(s.url, {
      mode: 'readonly',
      origin: 'https://dashboard.example',
    });
    cleanups.push(() => allowed.close());
    expect(allowed.mode).toBe('readonly');
  });

  it('lets a page in with a dashboard.ticket for its origin, granting at most the ticket mode', async () => {
    const s = await server();
    const page = 'http://127.0.0.1:8123';
    const owner = await client(s.url, 'readandwrite');
    const ask = async (mode: 'readonly' | 'readandwrite', origin = page) =>
      (await owner.request('dashboard.ticket', { origin, mode }, 'dashboard.ticket')).data.ticket;
    const viewer = await ask('readonly');
    const open = (origin: string, ticket: string, mode: 'readonly' | 'readandwrite') =>
      RibosomeClient.connect(s.url, { mode, origin, ticket: async () => ticket });
    // A readonly ticket asking readandwrite is granted readonly; it may not stop the server.
    const watcher = await open(page, viewer, 'readandwrite');
    cleanups.push(() => watcher.close());
    expect(watcher.mode).toBe('readonly');
    await expect(watcher.request('server.shutdown', { reason: 'x' }, 'pong')).rejects.toMatchObject({
      code: 'INSUFFICIENT_PERMISSIONS',
    });
    await expect(watcher.request('codon.message', { text: 'hi' }, 'codon.message')).rejects.toMatchObject({
      code: 'INSUFFICIENT_PERMISSIONS',
    });
    // A page may not hand out tickets.
    await expect(
      watcher.request('dashboard.ticket', { origin: page, mode: 'readonly' }, 'dashboard.ticket'),
    ).rejects.toMatchObject({ code: 'INSUFFICIENT_PERMISSIONS' });
    // A readandwrite ticket gives what is asked; a ticket is for its own origin only.
    const writer = await open(page, await ask('readandwrite'), 'readandwrite');
    cleanups.push(() => writer.close());
    expect(writer.mode).toBe('readandwrite');
    await expect(open('http://127.0.0.1:8124', viewer, 'readonly')).rejects.toThrow(/403/);
    // A readonly client hands out readonly tickets only; a malformed origin gets INVALID_COMMAND.
    const reader = await client(s.url, 'readonly');
    await expect(
      reader.request('dashboard.ticket', { origin: page, mode: 'readandwrite' }, 'dashboard.ticket'),
    ).rejects.toMatchObject({ code: 'INSUFFICIENT_PERMISSIONS' });
    await expect(ask('readonly', 'http://127.0.0.1:8123/path')).rejects.toMatchObject({
      code: 'INVALID_COMMAND',
    });
  });
});

describe('slow and dead clients', () => {
  it('drops a stalled client past its send buffer while the others get every event', async () => {
    const s = await server({ limits: { maxBufferedBytes: 1024 * 1024, closeGraceMs: 10_000 } });
    const healthy = await client(s.url);
    const stalled = new WebSocket(s.url);
    await new Promise((r) => stalled.once('open', r));
    const closed = new Promise<{ code: number; reason: string }>((resolve) =>
      stalled.once('close', (code, reason) => resolve({ code, reason: reason.toString() })),
    );
    stalled.send(JSON.stringify({ type: 'handshake', data: { mode: 'readonly' } }));
    await new Promise<void>((resolve) => {
      stalled.once('message', () => resolve());
    });
    // Stop reading: the kernel's buffers fill, then the server's buffer for this client grows.
    const socket = (stalled as unknown as { _socket: { pause(): void; resume(): void } })._socket;
    socket.pause();
    let received = 0;
    healthy.on('info', (e) => {
      if (e.data.message.startsWith('flood-')) received++;
    });
    // 40 MB in bursts of 80 KB: far more than the socket buffers and the 1 MiB limit together.
    const payload = 'y'.repeat(4000);
    const rounds = 500;
    for (let round = 0; round < rounds; round++) {
      await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          s.bus.publish('info', { message: `flood-${round}-${i} ${payload}` }),
        ),
      );
    }
    healthy.send('ping');
    await healthy.next('pong');
    expect(received).toBe(rounds * 20);
    socket.resume();
    const { code, reason } = await closed;
    expect(code).toBe(1008);
    expect(reason).toMatch(/send buffer/);
    expect(healthy.state).toBe('open');
  });

  it('terminates a peer that stops answering heartbeat pings', async () => {
    const s = await server({ limits: { heartbeatMs: 100 } });
    const alive = await client(s.url);
    const deaf = new WebSocket(s.url, { autoPong: false });
    const closed = new Promise<number>((resolve) => deaf.once('close', (code) => resolve(code)));
    await new Promise((r) => deaf.once('open', r));
    expect(await closed).toBe(1006);
    // The answering client survives many beats.
    alive.send('ping');
    await alive.next('pong');
    expect(alive.state).toBe('open');
  });
});
