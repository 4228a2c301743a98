/**
 * Upstream faults behind the LLM proxy: `ribosome run --proxy` in front of a fake provider that
 * refuses connections, resets before answering or mid-stream, stalls before or mid-stream, sends
 * garbage for SSE, closes a response early, or sends a huge non-streaming answer. Every request must
 * end (a clean Anthropic-style error, or a stream that is cut), never hang; the proxy and the server
 * stay up, and afterwards a good request goes through.
 */
import { once } from 'node:events';
import { writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { join } from 'node:path';
import { RibosomeClient } from '../../src/core/client/index.ts';
import { scratchDir } from './lib/execution.ts';
import { pick, type Scenario } from './lib/scenario.ts';
import {
  bounded,
  downVerdict,
  exitText,
  indent,
  type Life,
  ROOT,
  RSS_BOUND_MIB,
  startRibosome,
} from './lib/server.ts';

const FAULTS = [
  'refused',
  'reset before answering',
  'reset mid-stream',
  'stall before answering',
  'stall mid-stream',
  'garbage SSE',
  'close early',
  'huge answer',
] as const;
type Fault = (typeof FAULTS)[number] | 'ok';

const IDLE_TIMEOUT_MS = 1_500;
const REQUEST_TIMEOUT_MS = 30_000;

const SSE_START = `event: message_start\ndata: {"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"m","content":[],"stop_reason":null,"usage":{"input_tokens":1,"output_tokens":0}}}\n\n`;
const OK_BODY = JSON.stringify({
  id: 'msg_ok',
  type: 'message',
  role: 'assistant',
  model: 'm',
  content: [{ type: 'text', text: 'ok' }],
  stop_reason: 'end_turn',
  usage: { input_tokens: 1, output_tokens: 1 },
});

/** A fake provider whose next answers are faults; it can stop listening (refused connections). */
async function fakeProvider() {
  let mode: Fault = 'ok';
  const sockets = new Set<Socket>();
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      switch (mode) {
        case 'ok':
          res.writeHead(200, { 'content-type': 'application/json' });
          return res.end(OK_BODY);
        case 'reset before answering':
          return req.socket.destroy();
        case 'reset mid-stream':
          res.writeHead(200, { 'content-type': 'text/event-stream' });
          res.write(SSE_START);
          return setTimeout(() => req.socket.destroy(), 50);
        case 'stall before answering':
          return; // never answers
        case 'stall mid-stream':
          res.writeHead(200, { 'content-type': 'text/event-stream' });
          return res.write(SSE_START);
        case 'garbage SSE':
          res.writeHead(200, { 'content-type': 'text/event-stream' });
          res.write(
            'event: message_start\ndata: {"type":"message_st\n\n\u0000\u00ff garbage \r\r\n:::\ndata: [[[\n\n',
          );
          return res.end(Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7919) % 256)));
        case 'close early':
          res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100000' });
          res.write(OK_BODY.slice(0, 20));
          return setTimeout(() => req.socket.end(), 50);
        case 'huge answer': {
          const chunk = Buffer.alloc(1024 * 1024, 0x61);
          res.writeHead(200, {
            'content-type': 'application/json',
            'content-length': String(64 * chunk.length),
          });
          let sent = 0;
          const more = () => {
            while (sent < 64) {
              sent += 1;
              if (!res.write(chunk)) return res.once('drain', more);
            }
            res.end();
          };
          return more();
        }
      }
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    setMode(m: Fault) {
      mode = m;
    },
    /** Stops listening and drops every connection: the next connect is refused. */
    async refuse() {
      for (const s of sockets) s.destroy();
      await new Promise((r) => server.close(r));
    },
    async accept() {
      server.listen(port, '127.0.0.1');
      await once(server, 'listening');
    },
    close() {
      for (const s of sockets) s.destroy();
      server.close();
    },
  };
}

type Answer =
  | { kind: 'error'; status: number; body: string; clean: boolean }
  | { kind: 'complete'; status: number; bytes: number; sseError: boolean }
  | { kind: 'cut'; status: number; bytes: number; sseError: boolean }
  | { kind: 'refused' | 'hang'; detail: string };

/** One request to the proxy, read to its end (or its cut), bounded. */
function ask(proxyUrl: string, stream: boolean): Promise<Answer> {
  const body = JSON.stringify({
    model: 'm',
    max_tokens: 5,
    stream,
    messages: [{ role: 'user', content: 'hi' }],
  });
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      req.destroy();
      resolve({ kind: 'hang', detail: `no end within ${REQUEST_TIMEOUT_MS / 1000} s` });
    }, REQUEST_TIMEOUT_MS);
    const done = (a: Answer) => {
      clearTimeout(timer);
      resolve(a);
    };
    const req = http.request(`${proxyUrl}/v1/messages`, {
      method: 'POST',
      agent: false,
      headers: {
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(body),
        'x-api-key': 'chaos',
      },
    });
    req.on('error', (error) => done({ kind: 'refused', detail: error.message }));
    req.on('response', (res) => {
      const status = res.statusCode ?? 0;
      let bytes = 0;
      let head = '';
      res.on('data', (d: Buffer) => {
        bytes += d.length;
        if (head.length < 64 * 1024) head += d.toString();
      });
      const sseError = () => /event: error\n/.test(head);
      res.on('end', () => {
        if (status >= 400) {
          let clean = false;
          try {
            const parsed = JSON.parse(head) as { type?: string; error?: { type?: string; message?: string } };
            clean =
              parsed.type === 'error' &&
              typeof parsed.error?.type === 'string' &&
              typeof parsed.error?.message === 'string';
          } catch {}
          done({ kind: 'error', status, body: head.slice(0, 300), clean });
        } else done({ kind: 'complete', status, bytes, sseError: sseError() });
      });
      res.on('error', () => done({ kind: 'cut', status, bytes, sseError: sseError() }));
      res.on('aborted', () => done({ kind: 'cut', status, bytes, sseError: sseError() }));
    });
    req.end(body);
  });
}

function describeAnswer(a: Answer): string {
  switch (a.kind) {
    case 'error':
      return `${a.status} ${a.clean ? 'Anthropic-style error' : 'error that is not Anthropic-style'}`;
    case 'complete':
      return `${a.status} relayed${a.sseError ? ' with an SSE error event' : ''}`;
    case 'cut':
      return `${a.status} stream cut${a.sseError ? ' after an SSE error event' : ''}`;
    default:
      return a.kind;
  }
}

export const proxyFaults: Scenario = {
  name: 'proxy-faults',
  summary:
    'the proxy before a provider that refuses, resets, stalls, sends garbage, closes early or answers 64 MiB: every request ends, the proxy stays up',
  async run(ctx) {
    const dir = scratchDir(ctx.defer, 'ribosome-chaos-proxy-');
    const upstream = await fakeProvider();
    ctx.defer(() => upstream.close());
    const config = join(dir, 'config.yaml');
    writeFileSync(config, `proxyIdleTimeoutMs: ${IDLE_TIMEOUT_MS}\n`);
    let life: Life;
    try {
      life = await startRibosome([
        'run',
        join(ROOT, 'examples/empty/plan.yaml'),
        '--headless',
        '--execution',
        join(dir, 'exec'),
        '--proxy',
        '--provider-base-url',
        upstream.url,
        '--config',
        config,
      ]);
    } catch (error) {
      ctx.tally.fail(`proxy-faults: the server did not start: ${(error as Error).message}`);
      return;
    }
    ctx.defer(() => life.kill());
    const proxyUrl = `http://127.0.0.1:${life.port + 1}`;
    const client = await RibosomeClient.connect(life.url, { mode: 'readonly' });
    ctx.defer(() => client.close());
    const order: Fault[] = ctx.short ? [...FAULTS] : [];
    const deadline = ctx.deadline;
    for (let i = 0; ; i++) {
      const fault = ctx.short ? order[i] : Date.now() < deadline ? pick(ctx.random, FAULTS) : undefined;
      if (!fault) break;
      const stream =
        fault.includes('stream') ||
        fault === 'garbage SSE' ||
        (fault !== 'close early' && fault !== 'huge answer' && ctx.random() < 0.5);
      if (fault === 'refused') await upstream.refuse();
      else upstream.setMode(fault);
      const answer = await ask(proxyUrl, stream);
      if (fault === 'refused') await upstream.accept();
      upstream.setMode('ok');
      const how = describeAnswer(answer);
      ctx.log(`${fault}${stream ? ' (stream)' : ''}: ${how}`);
      ctx.tally.fault(`${fault}: ${how}`);
      if (answer.kind === 'hang')
        ctx.tally.fail(`proxy-faults: ${fault}: the request did not end (${answer.detail})`);
      if (answer.kind === 'refused')
        ctx.tally.fail(
          `proxy-faults: ${fault}: the proxy itself refused or dropped the request (${answer.detail})`,
        );
      if (answer.kind === 'error' && !answer.clean)
        ctx.tally.fail(
          `proxy-faults: ${fault}: ${answer.status} without an Anthropic-style error body: ${answer.body}`,
        );
      // The proxy and the server are still up.
      const health = await fetch(`${proxyUrl}/health`, { signal: AbortSignal.timeout(10_000) })
        .then((r) => r.status)
        .catch((e: Error) => e.message);
      if (health !== 200) ctx.tally.fail(`proxy-faults: after ${fault}, /health answered ${health}`);
      if (life.exit) break;
    }
    ctx.tally.rss(life.memory()?.hwmKiB);
    const good = await ask(proxyUrl, false);
    if (good.kind !== 'complete' || good.status !== 200)
      ctx.tally.fail(`proxy-faults: after the faults, a good request got ${describeAnswer(good)}`);
    const pong = await client
      .request('ping', undefined, 'pong', { timeoutMs: 10_000 })
      .then(() => true)
      .catch(() => false);
    if (!pong && !life.exit)
      ctx.tally.fail('proxy-faults: the server did not answer a ping after the faults');
    const peak = life.memory()?.hwmKiB ?? 0;
    ctx.tally.rss(peak);
    if (peak > RSS_BOUND_MIB * 1024)
      ctx.tally.fail(
        `proxy-faults: the server's RSS reached ${(peak / 1024).toFixed(0)} MiB, over ${RSS_BOUND_MIB} MiB`,
      );
    if (life.exit) {
      ctx.tally.crashes += 1;
      ctx.tally.fail(
        `proxy-faults: the server went down (${exitText(life.exit)}):\n${indent(downVerdict(life.exit, client.received, life.stderr()).join('\n'))}`,
      );
      return;
    }
    const stack = downVerdict({ code: 1, signal: null }, [], life.stderr()).find((p) =>
      p.startsWith('stack'),
    );
    if (stack) ctx.tally.fail(`proxy-faults: ${stack}`);
    await client.close();
    life.kill('SIGTERM');
    const exit = await bounded(life.exited, 20_000);
    if (exit?.code !== 0)
      ctx.tally.fail(
        `proxy-faults: the server did not stop cleanly on SIGTERM (${exit ? exitText(exit) : 'still up'})`,
      );
  },
};
