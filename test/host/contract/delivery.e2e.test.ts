import { afterAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import {
  type DeliveryWay,
  describeDelivery,
  type EventType,
  eventDelivery,
} from '../../../src/core/protocol/index.ts';
import { EMPTY_PLAN, journalRows, killAll, startServer, tempDir } from '../../helpers/server-process.ts';

/**
 * How events travel, as src/core/protocol/delivery.ts states it (and schema/asyncapi.yaml says it), holds
 * for what a real server does: two raw clients, one asks, the other watches; the journal is read after.
 */

const dirs: Array<{ remove(): void }> = [];
afterAll(() => {
  killAll();
  for (const dir of dirs) dir.remove();
});

type Frame = { id: string; type: EventType; data: Record<string, unknown> };

async function open(url: string, mode: 'readonly' | 'readandwrite') {
  const ws = new WebSocket(url);
  const frames: Frame[] = [];
  ws.on('message', (raw) => frames.push(JSON.parse(raw.toString())));
  await new Promise((resolve) => ws.once('open', resolve));
  const send = (frame: object) => ws.send(JSON.stringify(frame));
  send({ type: 'handshake', data: { mode, sendPreviousEvents: false } });
  return { ws, frames, send };
}

async function until(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 400 && !check(); i++) await new Promise((r) => setTimeout(r, 25));
  if (!check()) throw new Error(`timed out waiting for ${what}`);
}

describe('event delivery', () => {
  it('checkpoint.list, a command error and ping pong reach only the asker, ping.broadcast everyone; none is journaled', async () => {
    const dir = tempDir('ribosome-delivery-');
    dirs.push(dir);
    const server = await startServer(EMPTY_PLAN, dir.path);
    const watcher = await open(server.url, 'readonly');
    await until(() => watcher.frames.some((f) => f.type === 'server.ready'), 'the watcher handshake');
    const asker = await open(server.url, 'readandwrite');
    asker.send({ id: 'p', type: 'ping' });
    asker.send({ id: 'l', type: 'checkpoint.list', data: {} });
    asker.send({ id: 'bad', type: 'codon.start', data: { codonId: 7 } });
    // Answered in order: once the broadcast pong is back at both, everything before it was sent.
    asker.send({ id: 'last', type: 'ping.broadcast' });
    const broadcastPong = (f: Frame) => f.type === 'pong' && f.data.clientId !== undefined;
    await until(
      () => asker.frames.some(broadcastPong) && watcher.frames.some(broadcastPong),
      'the broadcast pong',
    );
    asker.ws.close();
    watcher.ws.close();
    server.kill('SIGTERM');
    await server.exited;
    const journaled = new Set(
      journalRows(dir.path).map((row) => (JSON.parse(row.json) as { id: string }).id),
    );
    const watched = new Set(watcher.frames.map((f) => f.id));

    /** What `frame`, received by the asker, shows of how it travelled. */
    const observed = (frame: Frame): Omit<DeliveryWay, 'when'> => ({
      to: watched.has(frame.id) ? 'everyone' : 'asker',
      journaled: journaled.has(frame.id),
    });
    const answers = asker.frames.filter((f) =>
      ['pong', 'checkpoint.list', 'error', 'handshake.response', 'server.ready'].includes(f.type),
    );
    expect(answers.map((f) => f.type).sort()).toEqual(
      ['checkpoint.list', 'error', 'handshake.response', 'pong', 'pong', 'server.ready'].sort(),
    );
    expect(answers.find((f) => f.type === 'error')?.data.commandId).toBe('bad');
    for (const frame of answers) {
      const ways = eventDelivery[frame.type].map(({ to, journaled }) => ({ to, journaled }));
      expect(ways, `${frame.type} ${JSON.stringify(frame.data).slice(0, 80)}`).toContainEqual(
        observed(frame),
      );
    }
    // The ways stated for them are what the asker saw, no more: none of them is journaled.
    expect(answers.filter((f) => journaled.has(f.id))).toEqual([]);
    expect(observed(answers.find(broadcastPong) as Frame)).toEqual({ to: 'everyone', journaled: false });
    for (const type of ['checkpoint.list', 'pong', 'error'] as const)
      expect(describeDelivery(type)).toMatch(/sent only to the client it answers, not journaled/);
  }, 60_000);
});
