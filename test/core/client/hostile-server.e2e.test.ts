import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { type WebSocket, WebSocketServer } from 'ws';
import { INVALID_FRAMES_KEPT, RibosomeClient } from '../../../src/core/client/index.ts';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const frame = (type: string, data: Record<string, unknown>) =>
  JSON.stringify({ id: `e-${type}`, timestamp: new Date().toISOString(), type, data });

/** Invalid frames of every kind a server may send: not JSON, binary, no event, an event that fails its schema. */
function sendInvalid(ws: WebSocket, count: number, from: number): void {
  for (let i = from; i < from + count; i++) {
    if (i % 4 === 0) ws.send(`not json ${i}`);
    else if (i % 4 === 1) ws.send(Buffer.from([i % 256]), { binary: true });
    else if (i % 4 === 2) ws.send(JSON.stringify({ frame: i }));
    else ws.send(frame('codon.started', { codonId: i }));
  }
}

/**
 * A hostile server on loopback: it answers the handshake, but around it sends `before` and `after`
 * invalid frames, then one valid `info` (so the client has read everything before it).
 */
async function hostileServer(before: number, after: number): Promise<string> {
  const wss = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  await new Promise<void>((resolve) => wss.once('listening', () => resolve()));
  cleanups.push(
    () =>
      new Promise<void>((resolve) => {
        for (const c of wss.clients) c.terminate();
        wss.close(() => resolve());
      }),
  );
  wss.on('connection', (ws) => {
    ws.once('message', () => {
      sendInvalid(ws, before, 0);
      ws.send(
        frame('handshake.response', { clientId: 'c1', mode: 'readonly', eventHistory: [], totalEvents: 0 }),
      );
      ws.send(
        frame('server.ready', {
          serverVersion: '0.0.0',
          executionPath: '/x',
          agentRootPath: '/x/agentRoot',
          dataPath: '/x/data',
          port: 1,
        }),
      );
      sendInvalid(ws, after, before);
      ws.send(frame('info', { message: 'the end' }));
    });
  });
  return `ws://127.0.0.1:${(wss.address() as AddressInfo).port}`;
}

describe('a client of a hostile server', () => {
  it(`keeps the last ${INVALID_FRAMES_KEPT} invalid frames and counts all of them`, async () => {
    const before = 50;
    const after = 20_000;
    const url = await hostileServer(before, after);
    const client = await RibosomeClient.connect(url, { mode: 'readonly', keepEvents: 10 });
    cleanups.push(() => client.close());
    await client.next('info', (e) => e.data.message === 'the end', 20_000);
    expect(client.invalidFrameCount).toBe(before + after);
    expect(client.invalidFrames).toHaveLength(INVALID_FRAMES_KEPT);
    // The latest ones, in order (the last frame sent, number 20 049, was binary).
    expect(client.invalidFrames.at(-1)).toBe('binary frame');
    expect(client.invalidFrames.at(-2)).toBe(`not json ${before + after - 2}`);
    expect(client.invalidFrames.at(-3)).toMatch(/^codon\.started: /);
    // The oldest kept, number 19 950: an object that is no event.
    expect(client.invalidFrames[0]).toContain('at id');
    // Valid events still come through.
    expect(client.serverInfo.serverVersion).toBe('0.0.0');
  });
});
