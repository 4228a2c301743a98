/**
 * The protocol fuzzer: frames built from the command schemas (lib/fuzz-frames.ts) sent one at a time
 * to a running server, each followed by a ping. Every frame the server's parser refuses (and every
 * valid command whose ids name nothing) must be answered with an error naming its id, or with a
 * close; the ping after it must be answered (never a silent hang); no reply may echo a huge input.
 * Besides: each command before the handshake and, state-modifying ones, from a readonly client; an
 * oversized frame; WebSocket protocol violations on raw sockets. The server must not crash, and after
 * it all the resume invariants hold.
 */
import { WebSocket } from 'ws';
import { commandSchemas, isStateModifying } from '../../src/core/protocol/index.ts';
import { acceptFrame } from '../../src/host/server/frame.ts';
import { Execution } from './lib/execution.ts';
import { type FuzzFrame, fieldsOf, fuzzFrame, systematicFrames } from './lib/fuzz-frames.ts';
import { FrameReader, frame, OPCODE, upgrade } from './lib/raw-ws.ts';
import type { ChaosContext, Scenario } from './lib/scenario.ts';
import { DEFAULTS, until } from './lib/server.ts';

const MiB = 1024 * 1024;
/** The server runs with its default limits. */
const MAX_FRAME_BYTES = DEFAULTS.limits.maxFrameBytes;
const HARD_MAX_FRAME_BYTES = DEFAULTS.limits.hardMaxFrameBytes;
/** An error reply is a message for a person: an input echoed whole is a way to make the server copy. */
const MAX_REPLY_BYTES = 16 * 1024;
const REPLY_TIMEOUT_MS = 15_000;
/** What a server sends when it carried out a command instead of refusing it. */
const ACTED = new Set(['checkpoint.list', 'codon.started', 'rollback.started', 'history.batch', 'info']);

type Reply = { type: string; data: Record<string, unknown>; bytes: number };

/** A WebSocket to the server with every message kept, in order. */
class Conn {
  readonly ws: WebSocket;
  readonly inbox: Reply[] = [];
  closeCode: number | undefined;
  #wake: (() => void) | undefined;

  private constructor(ws: WebSocket) {
    this.ws = ws;
    ws.on('message', (data: Buffer) => {
      try {
        const parsed = JSON.parse(data.toString()) as { type: string; data: Record<string, unknown> };
        this.inbox.push({ type: parsed.type, data: parsed.data ?? {}, bytes: data.length });
      } catch {
        this.inbox.push({ type: '(not JSON)', data: {}, bytes: data.length });
      }
      this.#wake?.();
    });
    ws.on('close', (code) => {
      this.closeCode = code;
      this.#wake?.();
    });
    ws.on('error', () => {});
  }

  static async open(url: string, mode?: 'readonly' | 'readandwrite'): Promise<Conn> {
    const ws = new WebSocket(url, { perMessageDeflate: false, maxPayload: 256 * MiB });
    const conn = new Conn(ws);
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    if (mode) {
      ws.send(JSON.stringify({ type: 'handshake', data: { mode } }));
      if (!(await conn.until((r) => r.type === 'server.ready', REPLY_TIMEOUT_MS)))
        throw new Error('no server.ready after the handshake');
      conn.inbox.length = 0;
    }
    return conn;
  }

  /** Waits for a message matching `match` (or a close); true when it came. */
  async until(match: (r: Reply) => boolean, timeoutMs: number): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (this.inbox.some(match)) return true;
      if (this.closeCode !== undefined || Date.now() > deadline) return false;
      await new Promise<void>((resolve) => {
        this.#wake = resolve;
        setTimeout(resolve, Math.max(1, Math.min(200, deadline - Date.now())));
      });
      this.#wake = undefined;
    }
  }

  send(f: FuzzFrame): void {
    this.ws.send(f.bytes ?? f.text ?? '', { binary: f.binary === true });
  }

  close(): void {
    this.ws.terminate();
  }
}

/** Problems grouped by kind, so a thousand frames failing the same way make one line. */
class Findings {
  readonly #kinds = new Map<string, { count: number; example: string }>();
  add(kind: string, example: string): void {
    const k = this.#kinds.get(kind);
    if (k) k.count += 1;
    else this.#kinds.set(kind, { count: 1, example });
  }
  report(fail: (m: string) => void): void {
    for (const [kind, { count, example }] of this.#kinds) fail(`fuzz: ${kind} (${count}×; e.g. ${example})`);
  }
}

export const fuzz: Scenario = {
  name: 'fuzz',
  summary:
    'every command with wrong types, sizes, nesting, ids; bad JSON and bytes; gates; WebSocket violations: an error or a close for each, never a hang or a crash',
  async run(ctx) {
    const findings = new Findings();
    let x = await fresh(ctx);
    let conn = await Conn.open(x.life!.url, 'readandwrite');
    ctx.defer(() => conn.close());
    const systematic = systematicFrames();
    const total = ctx.short ? systematic.length + 200 : Number.POSITIVE_INFINITY;
    let n = 0;
    for (; n < total && (ctx.short || n < systematic.length || Date.now() < ctx.deadline); n++) {
      const f = systematic[n] ?? fuzzFrame(ctx.random, n);
      const outcome = await exchange(conn, f, n, findings);
      if (outcome === 'reconnect' || x.life?.exit) {
        conn.close();
        if (x.life?.exit) {
          ctx.tally.crashes += 1;
          await x.verdictIfDown(0);
          ctx.tally.fail(`fuzz: the server went down after ${f.label}`);
          x = await fresh(ctx);
        }
        conn = await Conn.open(x.life!.url, 'readandwrite');
      }
      if (ctx.short && n % 100 === 99) x.checkStderr();
    }
    ctx.tally.framesFuzzed += n;
    ctx.tally.framesFuzzed += await gates(ctx, x.life!.url, findings);
    ctx.tally.framesFuzzed += await oversized(ctx, conn, findings);
    ctx.tally.framesFuzzed += await violations(ctx, x.life!.port, conn, findings);
    conn.close();
    findings.report((m) => ctx.tally.fail(m));
    ctx.tally.rss(x.life?.memory()?.hwmKiB);
    x.checkStderr();
    if (x.life?.exit) return void (await x.verdictIfDown(0));
    if (await x.settle()) await x.quietChecks('after the fuzzing');
    if (await x.shutdown()) x.storeChecks('after the fuzzing');
  },
};

async function fresh(ctx: ChaosContext): Promise<Execution> {
  const x = await Execution.create(ctx.tally, { codons: ['one', 'two'] });
  ctx.defer(() => x.dispose());
  if (!(await x.start({ autostart: false }))) throw new Error('the server did not start');
  await x.settle();
  return x;
}

/**
 * Sends one frame and a ping; checks what came back before the pong. Returns 'reconnect' when the
 * connection is gone (closed by the server, or silent).
 */
async function exchange(
  conn: Conn,
  f: FuzzFrame,
  n: number,
  findings: Findings,
): Promise<'ok' | 'reconnect'> {
  const raw = f.bytes ?? Buffer.from(f.text ?? '');
  const parsed = acceptFrame(raw, f.binary === true, MAX_FRAME_BYTES);
  const valid = parsed.ok && parsed.kind === 'command' ? parsed.command : undefined;
  // A valid command is sent only when it is harmless: a ping, or ids that must name nothing.
  if (valid && (valid.type === 'server.shutdown' || (!f.hostile && valid.type !== 'ping'))) return 'ok';
  // Hostile ids are a test of the engine's lookups, once the parser has taken the frame.
  const hostile = f.hostile === true && valid !== undefined;
  const mustFail = !valid || hostile;
  conn.inbox.length = 0;
  conn.send(f);
  if (hostile) {
    // The engine answers through its command queue, after pings: wait for the answer itself.
    await conn.until(
      (r) => (r.type === 'error' && r.data.commandId === f.id) || ACTED.has(r.type),
      REPLY_TIMEOUT_MS,
    );
  }
  conn.ws.send(JSON.stringify({ id: `ping-${n}`, type: 'ping' }));
  // A valid ping frame gets its own pong: the exchange ends at the last one.
  const pongs = valid?.type === 'ping' ? 2 : 1;
  const lastPong = () => conn.inbox.flatMap((r, i) => (r.type === 'pong' ? [i] : []))[pongs - 1] ?? -1;
  const answered = await until(() => lastPong() >= 0 || conn.closeCode !== undefined, REPLY_TIMEOUT_MS, 5);
  if (answered && lastPong() < 0) return 'reconnect';
  if (!answered) {
    if (conn.closeCode !== undefined) return 'reconnect';
    findings.add('no answer within 15 s to a frame and the ping after it (a silent hang)', f.label);
    return 'reconnect';
  }
  const before = conn.inbox.slice(0, lastPong()).filter((r) => r.type !== 'pong');
  const errors = before.filter((r) => r.type === 'error');
  if (mustFail && errors.length === 0)
    findings.add(
      hostile ? 'a command whose ids name nothing was not refused' : 'a malformed frame got no error',
      `${f.label} → ${before.map((r) => r.type).join(', ') || 'nothing'}`,
    );
  if (!mustFail && errors.length > 0)
    findings.add('a valid ping was refused', `${f.label}: ${String(errors[0]?.data.message).slice(0, 200)}`);
  const wantId = hostile ? f.id : !parsed.ok ? parsed.problem.commandId : undefined;
  if (wantId && errors.length > 0 && !errors.some((e) => e.data.commandId === wantId))
    findings.add('an error that does not name the command it answers', f.label);
  const big = before.find((r) => r.bytes > MAX_REPLY_BYTES);
  if (big)
    findings.add(
      `a reply of over ${MAX_REPLY_BYTES / 1024} KiB (the input echoed whole)`,
      `${big.bytes} bytes answering ${f.label}`,
    );
  return 'ok';
}

const validData = (type: keyof typeof commandSchemas) =>
  Object.fromEntries(
    fieldsOf(type).map((f) => [
      f.name,
      f.kind === 'boolean'
        ? false
        : f.kind === 'enum'
          ? f.values?.[0]
          : f.name === 'checkpointSha'
            ? 'abcdef12'
            : 'one',
    ]),
  );

/** Every command before the handshake; every state-modifying one from a readonly client: refused. */
async function gates(ctx: ChaosContext, url: string, findings: Findings): Promise<number> {
  let sent = 0;
  const types = Object.keys(commandSchemas) as Array<keyof typeof commandSchemas>;
  for (const mode of [undefined, 'readonly'] as const) {
    for (const type of types) {
      if (mode === 'readonly' && !isStateModifying(type)) continue;
      const conn = await Conn.open(url, mode);
      const id = `gate-${type}`;
      conn.ws.send(JSON.stringify({ id, type, data: validData(type) }));
      sent += 1;
      const refused = await conn.until(
        (r) => r.type === 'error' && r.data.commandId === id,
        REPLY_TIMEOUT_MS,
      );
      if (!refused)
        findings.add(
          mode
            ? 'a readonly client was not refused a state-modifying command'
            : 'a command before the handshake was not refused',
          `${type} → ${conn.inbox.map((r) => r.type).join(', ') || (conn.closeCode ? `close ${conn.closeCode}` : 'nothing')}`,
        );
      conn.close();
    }
  }
  ctx.tally.fault('commands past the handshake and permission gates: refused');
  return sent;
}

/** A frame just over the command limit gets MESSAGE_TOO_LARGE; one over the hard limit closes its connection. */
async function oversized(ctx: ChaosContext, conn: Conn, findings: Findings): Promise<number> {
  const pad = (size: number) => `{"id":"big","type":"ping","data":{"pad":"${'x'.repeat(size)}"}}`;
  conn.inbox.length = 0;
  conn.ws.send(pad(MAX_FRAME_BYTES));
  const refused = await conn.until((r) => r.type === 'error' && r.data.code === 'MESSAGE_TOO_LARGE', 30_000);
  if (!refused)
    findings.add(
      'a frame over the size limit was not refused with MESSAGE_TOO_LARGE',
      `${MAX_FRAME_BYTES} bytes`,
    );
  ctx.tally.fault(`frame over ${MAX_FRAME_BYTES / MiB} MiB: ${refused ? 'MESSAGE_TOO_LARGE' : 'no answer'}`);
  const other = await Conn.open(conn.ws.url, 'readandwrite');
  other.ws.send(pad(HARD_MAX_FRAME_BYTES));
  const closed = await until(() => other.closeCode !== undefined, 60_000);
  if (!closed)
    findings.add('a frame over the hard limit did not close its connection', `${HARD_MAX_FRAME_BYTES} bytes`);
  ctx.tally.fault(
    `frame over ${HARD_MAX_FRAME_BYTES / MiB} MiB: ${closed ? `closed ${other.closeCode}` : 'left open'}`,
  );
  other.close();
  return 2;
}

/** WebSocket protocol violations on raw sockets: each connection is closed, the server carries on. */
async function violations(ctx: ChaosContext, port: number, main: Conn, findings: Findings): Promise<number> {
  const handshake = frame(JSON.stringify({ type: 'handshake', data: { mode: 'readandwrite' } }));
  const cases: Array<[string, Buffer]> = [
    ['a reserved opcode', frame('{}', { opcode: 3 })],
    ['reserved bits set', frame('{}', { rsv: 4 })],
    ['an unmasked client frame', frame('{"id":"x","type":"ping"}', { mask: false })],
    ['a ping of 200 bytes (control frames hold 125)', frame(Buffer.alloc(200), { opcode: OPCODE.ping })],
    ['a fragmented control frame', frame('x', { opcode: OPCODE.ping, fin: false })],
    ['a continuation without a start', frame('{}', { opcode: OPCODE.continuation })],
    [
      'a new text frame inside a fragmented one',
      Buffer.concat([frame('{"id":', { fin: false }), frame('"x"}')]),
    ],
    ['a length of 2^62 bytes', frame(Buffer.alloc(0), { length: 2 ** 62 })],
    ['a close with code 999', frame(Buffer.from([0x03, 0xe7]), { opcode: OPCODE.close })],
  ];
  for (const [label, bytes] of cases) {
    const { socket, status } = await upgrade(port);
    const reader = new FrameReader();
    let ended = false;
    socket.on('data', (d: Buffer) => reader.push(d));
    socket.on('close', () => {
      ended = true;
    });
    if (status !== 101) {
      findings.add('an upgrade was not accepted', `${status} before ${label}`);
      socket.destroy();
      continue;
    }
    socket.write(Buffer.concat([handshake, bytes]));
    const closed = await until(() => ended || reader.closeCode !== undefined, 10_000);
    if (!closed) findings.add('a WebSocket protocol violation left its connection open', label);
    ctx.tally.fault(`protocol violation: ${closed ? 'closed' : 'left open'}`);
    socket.destroy();
  }
  main.inbox.length = 0;
  main.ws.send(JSON.stringify({ id: 'after-violations', type: 'ping' }));
  if (!(await main.until((r) => r.type === 'pong', REPLY_TIMEOUT_MS)))
    findings.add('no pong after the protocol violations', 'ping');
  return cases.length;
}
