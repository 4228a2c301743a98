import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { CommandError, RibosomeClient } from '../../../src/core/client/index.ts';
import {
  COMMAND_TYPES,
  type CommandType,
  READONLY_COMMANDS,
  type ServerEvent,
} from '../../../src/core/protocol/index.ts';
import { startInProcess } from '../../helpers/in-process.ts';

let server: Awaited<ReturnType<typeof startInProcess>>;
const clients: RibosomeClient[] = [];

async function connect(
  mode: 'readonly' | 'readandwrite',
  sendPreviousEvents = false,
): Promise<RibosomeClient> {
  const client = await RibosomeClient.connect(server.url, { mode, sendPreviousEvents });
  clients.push(client);
  return client;
}

beforeAll(async () => {
  server = await startInProcess({ limits: { maxFrameBytes: 1024 * 1024 } });
});
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
});
afterAll(async () => {
  await server.cleanup();
});

/** Opens a raw socket and collects parsed frames. */
async function rawSocket(): Promise<{
  ws: WebSocket;
  frames: ServerEvent[];
  next: () => Promise<ServerEvent>;
}> {
  const ws = new WebSocket(server.url);
  const frames: ServerEvent[] = [];
  const waiting: Array<(e: ServerEvent) => void> = [];
  ws.on('message', (d) => {
    const e = JSON.parse(d.toString()) as ServerEvent;
    frames.push(e);
    waiting.shift()?.(e);
  });
  await new Promise((r) => ws.once('open', r));
  let read = 0;
  const next = () =>
    new Promise<ServerEvent>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('no frame')), 5000);
      const take = () => {
        clearTimeout(timer);
        resolve(frames[read++]!);
      };
      if (frames.length > read) take();
      else waiting.push(() => take());
    });
  return { ws, frames, next };
}

const sampleData: Record<CommandType, unknown> = {
  'codon.start': { codonId: 'nope' },
  'codon.next': undefined,
  'codon.skip': undefined,
  'codon.redo': undefined,
  'codon.forceStop': { reason: 'test' },
  'codon.message': { text: 'hello agent' },
  'review.comment': { codonId: 'nope', file: 'a.ts', lines: { start: 1, end: 1 }, text: 'why?' },
  'review.submit': { codonId: 'nope', to: 'redo' },
  'checkpoint.list': {},
  'checkpoint.diff': { from: 'abcdef1', to: 'abcdef2' },
  'rollback.toCheckpoint': { checkpointSha: 'abcdef1' },
  'rollback.toCodon': { codonId: 'nope', checkpointType: 'start' },
  'rollback.toLastSuccess': {},
  'server.shutdown': { reason: 'x' },
  'dashboard.ticket': { origin: 'http://127.0.0.1:9', mode: 'readonly' },
  'approval.approve': { codonId: 'nope' },
  ping: undefined,
  'ping.broadcast': undefined,
  'history.sync': undefined,
};

describe('handshake (spec 2.2, 3.1)', () => {
  it('answers with handshake.response then server.ready, to that client only', async () => {
    const other = await connect('readonly');
    const otherSaw: string[] = [];
    other.onEvent((e) => otherSaw.push(e.type));
    const { ws, next } = await rawSocket();
    ws.send(JSON.stringify({ type: 'handshake', data: { mode: 'readandwrite' } }));
    const response = await next();
    expect(response.type).toBe('handshake.response');
    if (response.type !== 'handshake.response') return;
    expect(response.data.clientId).toMatch(/^client-/);
    expect(response.data.mode).toBe('readandwrite');
    expect(response.data.eventHistory).toEqual([]);
    expect(response.data.totalEvents).toBeGreaterThanOrEqual(1);
    expect(response.id).toBeTruthy();
    expect(Number.isNaN(Date.parse(response.timestamp))).toBe(false);
    const ready = await next();
    expect(ready.type).toBe('server.ready');
    if (ready.type !== 'server.ready') return;
    expect(ready.data).toMatchObject({
      serverVersion: expect.stringMatching(/^\d+\.\d+\.\d+/),
      executionPath: server.dir,
      agentRootPath: `${server.dir}/agentRoot`,
      dataPath: `${server.dir}/data`,
      port: server.port,
    });
    // Connection events are never journaled nor broadcast.
    other.send('ping');
    await other.next('pong');
    expect(otherSaw).not.toContain('handshake.response');
    expect(otherSaw).not.toContain('server.ready');
    ws.close();
  });

  it('sends the current run history when asked', async () => {
    const c = await connect('readonly', true);
    const types = c.handshake.eventHistory.map((e) => e.type);
    expect(types).toContain('server.idle');
    expect(c.handshake.totalEvents).toBeGreaterThanOrEqual(types.length);
  });

  it('grants the mode asked for', async () => {
    expect((await connect('readonly')).mode).toBe('readonly');
    expect((await connect('readandwrite')).mode).toBe('readandwrite');
  });

  it('refuses every command before the handshake with HANDSHAKE_REQUIRED and the command id', async () => {
    const { ws, next } = await rawSocket();
    for (const type of COMMAND_TYPES) {
      ws.send(JSON.stringify({ id: `pre-${type}`, type, data: sampleData[type] }));
      const e = await next();
      expect(e.type).toBe('error');
      if (e.type !== 'error') return;
      expect(e.data).toMatchObject({
        code: 'HANDSHAKE_REQUIRED',
        commandId: `pre-${type}`,
        severity: 'operation',
      });
    }
    // Still usable afterwards.
    ws.send(JSON.stringify({ type: 'handshake', data: { mode: 'readonly' } }));
    expect((await next()).type).toBe('handshake.response');
    ws.close();
  });

  it('refuses a second handshake on the same connection', async () => {
    const c = await connect('readonly');
    const answer = c.next('error');
    c.sendRaw(JSON.stringify({ id: 'hs2', type: 'handshake', data: { mode: 'readandwrite' } }));
    expect((await answer).data).toMatchObject({ code: 'HANDSHAKE_ALREADY_DONE', commandId: 'hs2' });
  });
});

describe('permissions (spec 4.2, every command in both modes)', () => {
  const tested = COMMAND_TYPES.filter((t) => t !== 'server.shutdown');

  it.each(tested)('%s', async (type) => {
    for (const mode of ['readonly', 'readandwrite'] as const) {
      const c = await connect(mode);
      const seen: ServerEvent[] = [];
      c.onEvent((e) => seen.push(e));
      const id = (c.send as (t: string, d?: unknown) => string)(type, sampleData[type]);
      // A ping after the command: once its pong arrives, the command's answer has arrived too.
      c.send('ping');
      await c.next('pong', (p) => p.data.clientId === undefined);
      const refused = seen.find((e) => e.type === 'error' && e.data.code === 'INSUFFICIENT_PERMISSIONS');
      const expectRefusal = mode === 'readonly' && !READONLY_COMMANDS.has(type);
      expect(refused !== undefined, `${mode} ${type}`).toBe(expectRefusal);
      if (refused?.type === 'error') expect(refused.data.commandId).toBe(id);
    }
  });

  it('lets a readonly client shut the server down (it is in the readonly list)', () => {
    expect(READONLY_COMMANDS.has('server.shutdown')).toBe(true);
  });

  it('answers engine commands with the reason they cannot act, to the sender only', async () => {
    const c = await connect('readandwrite');
    await expect(c.request('codon.start', { codonId: 'ghost' }, 'codon.started')).rejects.toMatchObject({
      code: 'UNKNOWN_CODON',
    });
    await expect(c.request('codon.skip', undefined, 'codon.completed')).rejects.toBeInstanceOf(CommandError);
    const list = await c.request('checkpoint.list', {}, 'checkpoint.list');
    expect(list.data.runId).toBe(server.bus.runId);
  });
});

describe('ping and fan-out', () => {
  it('ping answers the sender only; ping.broadcast reaches everyone with the sender id', async () => {
    const a = await connect('readonly');
    const b = await connect('readandwrite');
    const bPongs: ServerEvent[] = [];
    b.on('pong', (e) => bPongs.push(e));
    a.send('ping');
    const own = await a.next('pong');
    expect(own.data).toMatchObject({ message: 'pong' });
    expect(own.data.clientId).toBeUndefined();
    const toB = b.next('pong', (e) => e.data.clientId === a.clientId);
    const toA = a.next('pong', (e) => e.data.clientId === a.clientId);
    a.send('ping.broadcast');
    await Promise.all([toA, toB]);
    expect(bPongs.filter((e) => e.type === 'pong' && e.data.clientId === undefined)).toEqual([]);
  });

  it('50 concurrent clients each receive every broadcast and every journaled event', async () => {
    const many = await Promise.all(
      Array.from({ length: 50 }, () => RibosomeClient.connect(server.url, { mode: 'readonly' })),
    );
    clients.push(...many);
    const all = many.map((c) => {
      let pongs = 0;
      let infos = 0;
      c.on('pong', (e) => {
        if (e.data.clientId) pongs++;
      });
      c.on('info', (e) => {
        if (e.data.message.startsWith('fanout-')) infos++;
      });
      return { c, counts: () => ({ pongs, infos }) };
    });
    const lastInfo = Promise.all(many.map((c) => c.next('info', (e) => e.data.message === 'fanout-99')));
    for (let i = 0; i < 100; i++) void server.bus.publish('info', { message: `fanout-${i}` });
    await lastInfo;
    const lastPongs = Promise.all(
      many.map((c) => c.next('pong', (e) => e.data.clientId === many.at(-1)!.clientId)),
    );
    for (const c of many) c.send('ping.broadcast');
    await lastPongs;
    // Each client saw the pong of the last sender; all 50 pongs were sent before it.
    for (const { counts } of all) {
      expect(counts().infos).toBe(100);
      expect(counts().pongs).toBeGreaterThanOrEqual(1);
    }
    await Promise.all(many.map((c) => c.close()));
  });
});

describe('bad input never kills a connection (spec 7)', () => {
  it.each([
    ['non-JSON text', 'hello there', false, 'INVALID_MESSAGE', undefined],
    ['a binary frame', Buffer.from('{"id":"b1","type":"ping"}'), true, 'INVALID_MESSAGE', undefined],
    ['an unknown type', '{"id":"u1","type":"codon.explode"}', false, 'UNKNOWN_COMMAND', 'u1'],
    ['a missing id', '{"type":"ping"}', false, 'INVALID_COMMAND', undefined],
    [
      'wrong field types',
      '{"id":"w1","type":"codon.start","data":{"codonId":7}}',
      false,
      'INVALID_COMMAND',
      'w1',
    ],
    [
      'a missing required field',
      '{"id":"w2","type":"rollback.toCodon","data":{"codonId":"a"}}',
      false,
      'INVALID_COMMAND',
      'w2',
    ],
    ['invalid UTF-8', Buffer.from([0x7b, 0xc3, 0x28, 0x7d]), false, 'INVALID_MESSAGE', undefined],
    [
      'an oversized frame',
      `{"id":"big","type":"ping","pad":"${'x'.repeat(1024 * 1024 + 10)}"}`,
      false,
      'MESSAGE_TOO_LARGE',
      undefined,
    ],
  ] as const)('%s', async (_name, frame, binary, code, commandId) => {
    const c = await connect('readandwrite');
    const other = await connect('readonly');
    const otherErrors: ServerEvent[] = [];
    other.on('error', (e) => otherErrors.push(e));
    const answer = c.next('error');
    c.sendRaw(frame, binary);
    const error = await answer;
    expect(error.data.code).toBe(code);
    expect(error.data.severity).toBe('operation');
    expect(error.data.fatal).toBe(false);
    expect(error.data.commandId).toBe(commandId);
    // The connection still works, and nobody else heard of it.
    c.send('ping');
    await c.next('pong');
    other.send('ping');
    await other.next('pong');
    expect(otherErrors).toEqual([]);
    expect(c.state).toBe('open');
  });
});

describe('INVALID_COMMAND says what is wrong, like the plan validator (path: expected, got)', () => {
  it.each([
    [
      { id: 'v1', type: 'codon.start', data: { codonId: 7 } },
      'invalid codon.start: data.codonId: expected a string, got a number',
    ],
    [
      { id: 'v2', type: 'rollback.toCodon', data: { codonId: 'a', checkpointType: 'strat' } },
      'invalid rollback.toCodon: data.checkpointType: expected one of rig-setup, completed, error, skipped, start, end, got "strat" (did you mean "start"?)',
    ],
    [
      { id: 'v3', type: 'rollback.toCodon', data: { codonId: 1, autoRestart: 'yes' } },
      'invalid rollback.toCodon (3 problems): data.codonId: expected a string, got a number; data.checkpointType: expected one of rig-setup, completed, error, skipped, start, end, got nothing; data.autoRestart: expected a boolean, got a string',
    ],
    [
      { id: 'v4', type: 'rollback.toCheckpoint', data: { checkpointSha: 'zz' } },
      'invalid rollback.toCheckpoint: data.checkpointSha: expected a git SHA (4-64 hex digits), got "zz"',
    ],
    [{ type: 'ping' }, 'invalid ping: id: expected a string, got nothing'],
  ])('%j', async (frame, message) => {
    const c = await connect('readandwrite');
    const answer = c.next('error');
    c.sendRaw(JSON.stringify(frame));
    const error = await answer;
    expect(error.data).toMatchObject({ code: 'INVALID_COMMAND', message, severity: 'operation' });
    expect(error.data.commandId).toBe('id' in frame ? frame.id : undefined);
  });

  it('an invalid handshake is worded the same way', async () => {
    const { ws, next } = await rawSocket();
    ws.send(JSON.stringify({ type: 'handshake', data: { mode: 'admin' } }));
    const answer = await next();
    expect(answer.type === 'error' && answer.data).toMatchObject({
      code: 'INVALID_COMMAND',
      message: 'invalid handshake: data.mode: expected one of readonly, readandwrite, got "admin"',
    });
    ws.close();
  });
});

describe('permission comes before the payload (spec 3.1 "always")', () => {
  const modifying = COMMAND_TYPES.filter((t) => !READONLY_COMMANDS.has(t));
  /** Payloads no command accepts: each would be INVALID_COMMAND from a readandwrite client. */
  const invalidData = [
    7,
    'text',
    [1],
    { codonId: 5, checkpointSha: 'zz', checkpointType: 9, autoRestart: 'x' },
  ];

  it.each(modifying)(
    'a readonly client sending %s with any payload is refused for permission',
    async (type) => {
      const c = await connect('readonly');
      for (const [n, data] of invalidData.entries()) {
        const id = `${type}-${n}`;
        const answer = c.next('error', (e) => e.data.commandId === id);
        c.sendRaw(JSON.stringify({ id, type, data }));
        expect((await answer).data.code).toBe('INSUFFICIENT_PERMISSIONS');
      }
      // Even without a valid id: refused for permission, answered without a commandId.
      const anonymous = c.next('error');
      c.sendRaw(JSON.stringify({ id: '', type, data: 7 }));
      const refused = (await anonymous).data;
      expect([refused.code, refused.commandId]).toEqual(['INSUFFICIENT_PERMISSIONS', undefined]);
      // The same payload from a readandwrite client is invalid, not refused.
      const writer = await connect('readandwrite');
      const invalid = writer.next('error', (e) => e.data.commandId === 'w');
      writer.sendRaw(JSON.stringify({ id: 'w', type, data: 7 }));
      expect((await invalid).data.code).toBe('INVALID_COMMAND');
    },
  );

  it('before the handshake, any command with any payload gets HANDSHAKE_REQUIRED', async () => {
    const { ws, next } = await rawSocket();
    ws.send(JSON.stringify({ id: 'early', type: 'codon.start', data: { codonId: 7 } }));
    const answer = await next();
    expect(answer.type === 'error' && [answer.data.code, answer.data.commandId]).toEqual([
      'HANDSHAKE_REQUIRED',
      'early',
    ]);
    ws.close();
  });
});

describe('history (spec 4.3)', () => {
  it('streams over 10 000 events in bounded batches, hasMore false only on the last', async () => {
    const before = server.bus.runId;
    const published = [];
    for (let i = 0; i < 10_500; i++) published.push(server.bus.publish('info', { message: `h-${i}` }));
    await Promise.all(published);
    const c = await connect('readonly');
    const batches: Array<{ count: number; bytes: number; hasMore: boolean }> = [];
    c.on('history.batch', (b) =>
      batches.push({
        count: b.data.events.length,
        bytes: JSON.stringify(b.data.events).length,
        hasMore: b.data.hasMore,
      }),
    );
    const events = await c.syncHistory();
    const messages = events.flatMap((e) =>
      e.type === 'info' && e.data.message.startsWith('h-') ? [e.data.message] : [],
    );
    expect(messages).toEqual(Array.from({ length: 10_500 }, (_, i) => `h-${i}`));
    expect(events.length).toBe(c.handshake.totalEvents);
    expect(batches.length).toBeGreaterThan(10);
    expect(batches.every((b) => b.count <= 1000 && b.bytes <= 1024 * 1024 + 2)).toBe(true);
    expect(batches.slice(0, -1).every((b) => b.hasMore)).toBe(true);
    expect(batches.at(-1)!.hasMore).toBe(false);
    expect(server.bus.runId).toBe(before);
  });
});
