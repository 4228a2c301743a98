import { readFileSync, writeFileSync } from 'node:fs';
import { connect as tcpConnect } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { RibosomeClient } from '../../../src/core/client/index.ts';
import type { ServerEvent } from '../../../src/core/protocol/index.ts';
import { e2eResources } from '../../helpers/e2e-resources.ts';
import { startInProcess } from '../../helpers/in-process.ts';
import { type CodonBehaviour, codonScript, simplePlan } from '../../helpers/plans.ts';
import { pidsWith, waitFor } from '../../helpers/processes.ts';
import { EMPTY_PLAN, runCli, startServer, tempDir } from '../../helpers/server-process.ts';

/** A real `ribosome run` process against clients that flood it, stall, never handshake or send odd ids. */
const { temps, clients, serve } = e2eResources();

const MiB = 1024 * 1024;

function workDir(): string {
  const t = tempDir();
  temps.push(t);
  return t.path;
}

async function connect(url: string, mode: 'readonly' | 'readandwrite' = 'readonly') {
  const c = await RibosomeClient.connect(url, { mode });
  clients.push(c);
  return c;
}

/** Journals about `bytes` of events into an execution directory (a server run that has stopped). */
async function fillJournal(executionDir: string, bytes: number): Promise<number> {
  const s = await startInProcess({ journalSync: 'normal' }, executionDir);
  const pad = 'x'.repeat(1000);
  const count = Math.ceil(bytes / 1100);
  for (let i = 0; i < count; i += 200) {
    await Promise.all(
      Array.from({ length: Math.min(200, count - i) }, (_, j) =>
        s.bus.publish('info', { message: `fill-${i + j} ${pad}` }),
      ),
    );
  }
  await s.cleanup();
  return count;
}

/** Peak and current resident memory of a process, in bytes. */
function memoryOf(pid: number): { peak: number; now: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1]) * 1024;
  return { peak: kib('VmHWM'), now: kib('VmRSS') };
}

/** A raw WebSocket that has handshaken; counts what it gets without keeping the events. */
async function rawClient(url: string) {
  const ws = new WebSocket(url);
  const seen = { refused: new Set<string>(), syncsDone: 0, batchEvents: [] as number[], other: 0 };
  let current = 0;
  let handshaken: () => void = () => {};
  const ready = new Promise<void>((resolve) => {
    handshaken = resolve;
  });
  ws.on('message', (data) => {
    const e = JSON.parse(data.toString()) as ServerEvent;
    if (e.type === 'handshake.response') handshaken();
    else if (e.type === 'error' && e.data.code === 'HISTORY_SYNC_IN_PROGRESS' && e.data.commandId)
      seen.refused.add(e.data.commandId);
    else if (e.type === 'history.batch') {
      current += e.data.events.length;
      if (!e.data.hasMore) {
        seen.syncsDone += 1;
        seen.batchEvents.push(current);
        current = 0;
      }
    } else seen.other += 1;
  });
  await new Promise((resolve) => ws.once('open', resolve));
  ws.send(JSON.stringify({ type: 'handshake', data: { mode: 'readonly' } }));
  await ready;
  return { ws, seen };
}

type RawSocket = { cork(): void; uncork(): void; pause(): void; resume(): void };
const socketOf = (ws: WebSocket) => (ws as unknown as { _socket: RawSocket })._socket;

/** Sends the frames in one write, so the server reads them together, as a flood arrives. */
const burst = (ws: WebSocket, prefix: string, count: number) => {
  const socket = socketOf(ws);
  socket.cork();
  for (let i = 0; i < count; i++) ws.send(JSON.stringify({ id: `${prefix}-${i}`, type: 'history.sync' }));
  socket.uncork();
};

describe('history.sync under a burst', () => {
  it('streams one sync per client at a time, refuses the rest, keeps answering others, in bounded memory', async () => {
    const exec = join(workDir(), 'exec');
    const filled = await fillJournal(exec, 4 * MiB);
    const server = await startServer(EMPTY_PLAN, exec);
    const pid = server.child.pid!;
    const other = await connect(server.url);

    // A client that reads, and one that never reads until the end.
    const reader = await rawClient(server.url);
    const stalled = await rawClient(server.url);
    const socket = socketOf(stalled.ws);
    socket.pause();
    burst(reader.ws, 'r', 500);
    burst(stalled.ws, 's', 500);

    // Meanwhile the other client's commands are answered.
    const list = await other.request('checkpoint.list', {}, 'checkpoint.list');
    expect(list.data.runId).toBeTruthy();
    other.send('ping');
    await other.next('pong');

    // Every sync of the reader is either refused or streamed whole.
    await waitFor(
      () => reader.seen.refused.size + reader.seen.syncsDone === 500,
      'the 500 syncs answered',
      60_000,
    );
    expect(reader.seen.refused.size).toBeGreaterThan(0);
    expect(reader.seen.syncsDone).toBeGreaterThan(0);
    expect(reader.seen.batchEvents.every((n) => n >= filled)).toBe(true);

    // The stalled client was not dropped: the server held only a batch or two for it.
    socket.resume();
    await waitFor(
      () => stalled.seen.refused.size + stalled.seen.syncsDone === 500,
      'the stalled client answered',
      60_000,
    );
    expect(stalled.seen.syncsDone).toBeGreaterThan(0);
    expect(stalled.ws.readyState).toBe(WebSocket.OPEN);

    // Before the fix: 1 000 syncs of a ~5 MB journal took the server to 2.4 GB. The bound is
    // generous (the server alone uses ~130 MB); docs/protocol.md#the-control-protocol-in-practice states ~18 MiB per client at most.
    const memory = memoryOf(pid);
    expect(memory.peak).toBeLessThan(400 * MiB);

    reader.ws.close();
    stalled.ws.close();
  });
});

describe('connection limits', () => {
  async function limitedServer(maxClients: number, handshakeTimeoutMs: number) {
    const dir = workDir();
    const config = join(dir, 'config.yaml');
    writeFileSync(config, `limits:\n  handshakeTimeoutMs: ${handshakeTimeoutMs}\n`);
    return startServer(EMPTY_PLAN, join(dir, 'exec'), [
      '--max-clients',
      String(maxClients),
      '--config',
      config,
    ]);
  }

  /** Opens a WebSocket; resolves with the HTTP status and body if the upgrade is refused. */
  function tryUpgrade(url: string): Promise<{ ws: WebSocket } | { status: number; body: string }> {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(url);
      ws.once('open', () => resolve({ ws }));
      ws.once('unexpected-response', (_req, res) => {
        let body = '';
        res.on('data', (d: Buffer) => {
          body += d.toString();
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      });
      ws.once('error', reject);
    });
  }

  it('refuses the upgrade past --max-clients with 503 and a JSON body, and takes a client again once one leaves', async () => {
    const server = await limitedServer(2, 10_000);
    await connect(server.url);
    const second = await connect(server.url);
    const refused = await tryUpgrade(server.url);
    expect('status' in refused && refused.status).toBe(503);
    const body = 'body' in refused ? JSON.parse(refused.body) : {};
    expect(body).toMatchObject({ error: 'too_many_clients', maxClients: 2 });
    expect(body.message).toContain('--max-clients');
    // The typed client and the terminal UI say why (found by a trial: the TUI asked whether
    // `ribosome run` was serving there).
    await expect(RibosomeClient.connect(server.url, { mode: 'readonly' })).rejects.toThrow(
      /HTTP 503: .*--max-clients/,
    );
    const tui = runCli(['tui', server.url, '--readonly']);
    expect((await tui.exited).code).not.toBe(0);
    expect(tui.stderr()).toMatch(/refused the WebSocket upgrade with HTTP 503: .*--max-clients/);
    expect(tui.stderr()).not.toContain('serving there');
    // The connected clients are not disturbed.
    second.send('ping');
    await second.next('pong');

    await second.close();
    // The server frees the place when it sees the close: retry (each try a round trip) until it has.
    let third: Awaited<ReturnType<typeof tryUpgrade>> | undefined;
    for (let i = 0; i < 100 && !(third && 'ws' in third); i++) third = await tryUpgrade(server.url);
    expect(third && 'ws' in third).toBe(true);
    if (third && 'ws' in third) third.ws.close();
  });

  it('closes a connection that never upgrades, or upgrades but never sends its handshake (4408)', async () => {
    const server = await limitedServer(4, 500);
    const silent = tcpConnect(server.port, '127.0.0.1');
    const partial = tcpConnect(server.port, '127.0.0.1', () =>
      partial.write('GET / HTTP/1.1\r\nHost: x\r\n'),
    );
    const ended = (s: typeof silent) => new Promise<void>((resolve) => s.once('close', () => resolve()));
    await Promise.all([ended(silent), ended(partial)]);

    const mute = new WebSocket(server.url);
    const closed = await new Promise<{ code: number; reason: string }>((resolve) =>
      mute.once('close', (code, reason) => resolve({ code, reason: reason.toString() })),
    );
    expect(closed.code).toBe(4408);
    expect(closed.reason).toMatch(/no handshake within 500 ms/);

    // A client that handshakes in time stays past the timeout.
    const c = await connect(server.url);
    const after = new WebSocket(server.url);
    await new Promise((resolve) => after.once('close', resolve));
    c.send('ping');
    await c.next('pong');
    expect(c.state).toBe('open');
  });

  it('refuses a --max-clients that is not a whole number of at least 1', async () => {
    for (const value of ['0', 'many']) {
      const proc = runCli([
        'run',
        EMPTY_PLAN,
        '--headless',
        '--execution',
        join(workDir(), 'exec'),
        '--max-clients',
        value,
      ]);
      expect((await proc.exited).code).toBe(2);
      expect(proc.stderr()).toContain('--max-clients');
    }
  });
});

describe('client values in answers', () => {
  const huge = (n: number) => 'Z'.repeat(n);

  it('repeats at most the first 100 characters of an offending value; oversized frames are refused', async () => {
    const server = await startServer(EMPTY_PLAN, join(workDir(), 'exec'));
    const c = await connect(server.url, 'readandwrite');
    const value = huge(900_000);
    const answers = [
      ['UNKNOWN_COMMAND', { id: 'e1', type: value }],
      ['UNKNOWN_CODON', { id: 'e2', type: 'codon.start', data: { codonId: value } }],
      ['UNKNOWN_RUN', { id: 'e3', type: 'checkpoint.list', data: { runId: value } }],
      [
        'UNKNOWN_CODON',
        { id: 'e4', type: 'rollback.toCodon', data: { codonId: value, checkpointType: 'end' } },
      ],
    ] as const;
    for (const [code, frame] of answers) {
      const answer = c.next('error', (e) => e.data.commandId === frame.id);
      c.sendRaw(JSON.stringify(frame));
      const error = await answer;
      expect(error.data.code).toBe(code);
      // 100 characters of the value, plus (UNKNOWN_COMMAND) the list of known commands.
      expect(error.data.message.length).toBeLessThan(600);
      expect(error.data.message).toContain(`${'Z'.repeat(100)}… (899900 more characters)`);
    }
    // An id too long to be one is refused and not repeated.
    const longId = c.next('error', (e) => e.data.code === 'INVALID_COMMAND');
    c.sendRaw(JSON.stringify({ id: value, type: 'ping' }));
    const refusedId = (await longId).data;
    expect(refusedId.message).toContain('at most 256');
    expect(refusedId.commandId).toBeUndefined();

    // 2 MiB: over the 1 MiB limit, refused; the connection stays.
    const tooLarge = c.next('error', (e) => e.data.code === 'MESSAGE_TOO_LARGE');
    c.sendRaw(JSON.stringify({ id: 'big', type: 'ping', pad: huge(2 * MiB) }));
    expect((await tooLarge).data.message).toMatch(/over the limit of 1048576 bytes/);
    c.send('ping');
    await c.next('pong');

    // 5 MiB: over the 4 MiB hard limit, the connection is closed (1009) before it is buffered whole.
    const raw = new WebSocket(server.url);
    await new Promise((resolve) => raw.once('open', resolve));
    const closed = new Promise<number>((resolve) => raw.once('close', (code) => resolve(code)));
    raw.send(huge(5 * MiB));
    expect(await closed).toBe(1009);
  });

  it('keeps at most 1 000 characters of a forceStop reason', async () => {
    const marker = 24_000 + Math.floor(Math.random() * 1000);
    const { client } = await serve(simplePlan(['stuck']), codonScript({ stuck: { sleep: marker } }));
    await waitFor(() => pidsWith(`sleep ${marker}`).length > 0, 'the agent to run', 30_000);
    const completed = client.next('codon.completed', () => true, 20_000);
    client.send('codon.forceStop', { reason: huge(500_000) });
    const message = (await completed).data.failureReason?.message ?? '';
    expect(message).toContain(`${'Z'.repeat(1000)}… (499000 more characters)`);
    expect(message.length).toBeLessThan(1200);
  });
});

describe('ids named like Object.prototype members', () => {
  const HOSTILE = [
    '__proto__',
    'hasOwnProperty',
    'valueOf',
    'isPrototypeOf',
    'propertyIsEnumerable',
    'toLocaleString',
    '__defineGetter__',
    '__lookupGetter__',
  ];

  it('a plan may name codons so, and every command taking an id treats such ids as unknown', async () => {
    const plan = simplePlan(['constructor', 'toString']);
    const behaviours = new Map<string, CodonBehaviour>([
      ['constructor', 'ok'],
      ['toString', 'ok'],
    ]);
    const { server, client } = await serve(plan, codonScript(Object.fromEntries(behaviours)));
    const allDone = (e: { type: string; data: Record<string, unknown> }) =>
      e.type === 'server.idle' && e.data.reason === 'all-codons-completed';
    if (!client.handshake.eventHistory.some(allDone))
      await client.waitFor(allDone, 60_000, 'the plan to run');
    const list = await client.request('checkpoint.list', {}, 'checkpoint.list');
    expect(list.data.checkpoints.map((c) => [c.codonId, c.checkpointType])).toEqual([
      ['constructor', 'completed'],
      ['toString', 'completed'],
    ]);

    const refusal = async (frame: object, commandId: string) => {
      const answer = client.next('error', (e) => e.data.commandId === commandId);
      client.sendRaw(JSON.stringify(frame));
      return (await answer).data.code;
    };
    for (const key of [...HOSTILE, 'constructor', 'toString']) {
      const id = `k-${key}`;
      expect(
        await refusal({ id: `${id}-list`, type: 'checkpoint.list', data: { runId: key } }, `${id}-list`),
      ).toBe('UNKNOWN_RUN');
      expect(await refusal({ id: `${id}-type`, type: key }, `${id}-type`)).toBe('UNKNOWN_COMMAND');
      expect(
        await refusal(
          { id: `${id}-sha`, type: 'rollback.toCheckpoint', data: { checkpointSha: key } },
          `${id}-sha`,
        ),
      ).toBe('INVALID_COMMAND');
      expect(
        await refusal(
          { id: `${id}-ctype`, type: 'rollback.toCodon', data: { codonId: 'toString', checkpointType: key } },
          `${id}-ctype`,
        ),
      ).toBe('INVALID_COMMAND');
      expect(await refusal({ id: `${id}-hs`, type: 'handshake', data: { mode: key } }, `${id}-hs`)).toBe(
        'INVALID_COMMAND',
      );
    }
    for (const key of HOSTILE) {
      const id = `k-${key}`;
      expect(
        await refusal({ id: `${id}-start`, type: 'codon.start', data: { codonId: key } }, `${id}-start`),
      ).toBe('UNKNOWN_CODON');
      expect(
        await refusal(
          { id: `${id}-back`, type: 'rollback.toCodon', data: { codonId: key, checkpointType: 'end' } },
          `${id}-back`,
        ),
      ).toBe('UNKNOWN_CODON');
    }

    // A "__proto__" member in a command's data is an ordinary, ignored key: no prototype is set.
    const current = client.next('checkpoint.list', () => true);
    client.sendRaw('{"id":"p1","type":"checkpoint.list","data":{"__proto__":{"runId":"nope"}}}');
    expect((await current).data.runId).toBe(list.data.runId);

    // The codons named so can still be started.
    const started = client.next('codon.started', (e) => e.data.codonId === 'constructor', 20_000);
    client.send('codon.start', { codonId: 'constructor' });
    await started;
    await client.next('codon.completed', (e) => e.data.codonId === 'constructor', 20_000);
    expect(server.child.exitCode).toBeNull();
  });
});
