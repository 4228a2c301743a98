import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { CommandError, type ConnectionState, RibosomeClient } from '../../../src/core/client/index.ts';
import { startInProcess } from '../../helpers/in-process.ts';
import { EMPTY_PLAN, killAll, startServer, tempDir } from '../../helpers/server-process.ts';

const temps: Array<{ remove(): void }> = [];
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
  killAll();
});
afterAll(() => {
  for (const t of temps) t.remove();
});

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const port = (server.address() as { port: number }).port;
  await new Promise((r) => server.close(r));
  return port;
}

describe('typed client', () => {
  it('gives events as callbacks, as an async iterator and as awaited matches; request rejects with the error', async () => {
    const s = await startInProcess();
    cleanups.push(() => s.cleanup());
    const client = await RibosomeClient.connect(s.url, { mode: 'readandwrite' });
    cleanups.push(() => client.close());
    const seen: string[] = [];
    client.on('info', (e) => seen.push(e.data.message));
    const iterated: string[] = [];
    const iterating = (async () => {
      for await (const e of client.events()) {
        if (e.type === 'info') iterated.push(e.data.message);
        if (iterated.length === 3) break;
      }
    })();
    const third = client.next('info', (e) => e.data.message === 'three');
    for (const message of ['one', 'two', 'three']) await s.bus.publish('info', { message });
    await third;
    await iterating;
    expect(seen).toEqual(['one', 'two', 'three']);
    expect(iterated).toEqual(['one', 'two', 'three']);
    const error = await client
      .request('codon.start', { codonId: 'ghost' }, 'codon.started')
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CommandError);
    expect((error as CommandError).code).toBe('UNKNOWN_CODON');
    await expect(client.next('codon.started', () => true, 50)).rejects.toThrow(/timed out/);
    expect(client.invalidFrames).toEqual([]);
  });

  it('syncHistory rejects with HISTORY_SYNC_IN_PROGRESS when its client already has a sync streaming', async () => {
    const s = await startInProcess({ limits: { historyBatchEvents: 10 } });
    cleanups.push(() => s.cleanup());
    await Promise.all(Array.from({ length: 100 }, (_, i) => s.bus.publish('info', { message: `m${i}` })));
    const client = await RibosomeClient.connect(s.url, { mode: 'readonly' });
    cleanups.push(() => client.close());
    const [first, second] = await Promise.allSettled([client.syncHistory(), client.syncHistory()]);
    expect(first.status === 'fulfilled' && first.value.length).toBe(client.handshake.totalEvents);
    expect(second.status === 'rejected' && second.reason).toBeInstanceOf(CommandError);
    expect(second.status === 'rejected' && (second.reason as CommandError).code).toBe(
      'HISTORY_SYNC_IN_PROGRESS',
    );
    // Once the first is done, the next one is taken.
    expect((await client.syncHistory()).length).toBeGreaterThanOrEqual(client.handshake.totalEvents);
  });

  it('streamHistory hands over every event once, in order, batch by batch; syncHistory gives the same', async () => {
    const s = await startInProcess({ limits: { historyBatchEvents: 10 } });
    cleanups.push(() => s.cleanup());
    for (let i = 0; i < 95; i++) await s.bus.publish('info', { message: `m${i}` });
    const client = await RibosomeClient.connect(s.url, { mode: 'readonly', keepEvents: 0 });
    cleanups.push(() => client.close());
    const batches: string[][] = [];
    const count = await client.streamHistory((events) =>
      batches.push(events.map((e) => (e.type === 'info' ? e.data.message : e.type))),
    );
    const streamed = batches.flat();
    expect(count).toBe(streamed.length);
    expect(streamed.filter((m) => m.startsWith('m'))).toEqual(Array.from({ length: 95 }, (_, i) => `m${i}`));
    // Batches of at most ten, the last one closing the stream.
    expect(batches.length).toBeGreaterThanOrEqual(10);
    expect(batches.every((b) => b.length <= 10)).toBe(true);
    const synced = await client.syncHistory();
    expect(synced.map((e) => (e.type === 'info' ? e.data.message : e.type))).toEqual(streamed);
    expect(client.invalidFrames).toEqual([]);
  });

  it('reconnects and handshakes again when the server comes back on the same port', async () => {
    const t = tempDir();
    temps.push(t);
    const exec = join(t.path, 'exec');
    const port = await freePort();
    const first = await startServer(EMPTY_PLAN, exec, ['--port', String(port)]);
    const client = await RibosomeClient.connect(first.url, {
      mode: 'readonly',
      reconnect: { minDelayMs: 50, maxDelayMs: 200, retries: 200 },
    });
    cleanups.push(() => client.close());
    const states: ConnectionState[] = [];
    client.onStateChange((s) => states.push(s));
    const firstId = client.clientId;
    first.kill('SIGTERM');
    await first.exited;
    await new Promise<void>((resolve) => {
      const off = client.onStateChange((s) => {
        if (s === 'reconnecting') {
          off();
          resolve();
        }
      });
      if (client.state === 'reconnecting') resolve();
    });
    const second = await startServer(EMPTY_PLAN, exec, ['--port', String(port)]);
    await new Promise<void>((resolve) => {
      if (client.state === 'open') return resolve();
      const off = client.onStateChange((s) => {
        if (s === 'open') {
          off();
          resolve();
        }
      });
    });
    expect(states).toContain('reconnecting');
    expect(client.clientId).not.toBe(firstId);
    client.send('ping');
    await client.next('pong');
    expect(client.serverInfo.port).toBe(second.port);
  });

  it('reports a refused connection clearly', async () => {
    const port = await freePort();
    await expect(
      RibosomeClient.connect(`ws://127.0.0.1:${port}`, { mode: 'readonly', connectTimeoutMs: 2_000 }),
    ).rejects.toThrow(/ECONNREFUSED|could not connect/);
  });
});
