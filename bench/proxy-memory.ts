// Proxy memory under large bodies, with the proxy (LoggingMiddleware on, as `--proxy` runs it) in a
// child process so its RSS is its own:
// 1. N parallel requests of M MiB each (Claude Code-like JSON with one big base64 image): the status
//    of each, the proxy's RSS before, at the peak, after, after 10 s idle and after a forced GC;
// 2. one 512 MiB non-streaming answer relayed to the agent: the proxy's peak RSS (it must stream).
// `node_modules/.bin/node bench/proxy-memory.ts [N] [M]` (default 10 x 30 MiB, as the probe of
// issue 11); writes bench/results/proxy-memory.json.
import { fork } from 'node:child_process';
import { once } from 'node:events';
import { mkdir, writeFile } from 'node:fs/promises';
import http from 'node:http';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pino from 'pino';

type Stats = { rss: number; heapUsed: number; external: number };
type FromChild = { kind: 'url'; url: string } | { kind: 'stats'; stats: Stats };

const MiB = 1024 * 1024;
const BIG_ANSWER_MIB = 512;

// ---------- child: the proxy ----------

async function child(targetUrl: string) {
  const { ProxyRunner } = await import('../src/llm/proxy/runner.ts');
  const { createLoggingMiddleware } = await import('../src/llm/proxy/middleware/logging.ts');
  const logger = pino(pino.destination('/dev/null'));
  const runner = new ProxyRunner({
    mode: 'passthrough',
    port: 0,
    targetUrl,
    logger,
    idleTimeoutMs: 0,
    middleware: [createLoggingMiddleware(logger)],
  });
  const url = await runner.start();
  const gc = (globalThis as { gc?: () => void }).gc;
  process.on('message', (message: { kind: 'stats' | 'gc' | 'stop' }) => {
    if (message.kind === 'stop') {
      runner.stop().then(() => process.exit(0));
      return;
    }
    if (message.kind === 'gc') {
      // Twice: the first collection leaves the memory of external strings to the second.
      gc?.();
      gc?.();
    }
    const { rss, heapUsed, external } = process.memoryUsage();
    process.send?.({ kind: 'stats', stats: { rss, heapUsed, external } } satisfies FromChild);
  });
  process.send?.({ kind: 'url', url } satisfies FromChild);
}

// ---------- parent: upstream, client, figures ----------

async function startUpstream(): Promise<{ url: string; close(): void }> {
  const chunk = Buffer.alloc(MiB, 'x');
  const server = http.createServer((req, res) => {
    let size = 0;
    req.on('data', (data: Buffer) => {
      size += data.length;
    });
    req.on('end', async () => {
      if (req.url === '/big') {
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': BIG_ANSWER_MIB * MiB });
        for (let i = 0; i < BIG_ANSWER_MIB; i++) {
          if (!res.write(chunk)) await once(res, 'drain');
        }
        res.end();
        return;
      }
      const body = JSON.stringify({ type: 'message', content: [{ type: 'text', text: `got ${size}` }] });
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
      res.end(body);
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return { url: `http://127.0.0.1:${port}`, close: () => server.close() };
}

function bigRequest(bytes: number): Buffer {
  const head = '{"model":"claude-sonnet-4-5","max_tokens":64,"messages":[{"role":"user","content":[';
  const imageHead = '{"type":"image","source":{"type":"base64","media_type":"image/png","data":"';
  const tail = '"}},{"type":"text","text":"What is in this picture?"}]}]}';
  const fill = Math.max(0, bytes - head.length - imageHead.length - tail.length);
  return Buffer.concat([Buffer.from(head + imageHead), Buffer.alloc(fill, 'A'), Buffer.from(tail)]);
}

/** Resolves with the status (0 for a transport error) and how many body bytes came back. */
function send(url: string, body: Buffer | undefined): Promise<{ status: number; bytes: number }> {
  return new Promise((resolve) => {
    const req = http.request(url, {
      method: body ? 'POST' : 'GET',
      agent: false,
      headers: body ? { 'content-type': 'application/json', 'content-length': body.length } : {},
    });
    req.on('error', () => resolve({ status: 0, bytes: 0 }));
    req.on('response', (res) => {
      let bytes = 0;
      res.on('data', (data: Buffer) => {
        bytes += data.length;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, bytes }));
      res.on('error', () => resolve({ status: 0, bytes }));
    });
    req.end(body);
  });
}

export async function run(count = 10, mib = 30): Promise<unknown> {
  const upstream = await startUpstream();
  const proxy = fork(fileURLToPath(import.meta.url), ['--child', upstream.url], {
    execArgv: ['--expose-gc'],
  });
  const replies: Array<(message: FromChild) => void> = [];
  const queued: FromChild[] = [];
  proxy.on('message', (message: FromChild) => {
    const reply = replies.shift();
    if (reply) reply(message);
    else queued.push(message);
  });
  const next = () =>
    new Promise<FromChild>((resolve) => {
      const message = queued.shift();
      if (message) resolve(message);
      else replies.push(resolve);
    });
  const first = await next();
  if (first.kind !== 'url') throw new Error('proxy did not start');
  const stats = async (kind: 'stats' | 'gc' = 'stats'): Promise<Stats> => {
    proxy.send({ kind });
    const reply = await next();
    if (reply.kind !== 'stats') throw new Error('unexpected message');
    return reply.stats;
  };
  /** Runs `work` while sampling the proxy's RSS; resolves with its result and the peak. */
  const sampled = async <T>(work: Promise<T>): Promise<{ result: T; peak: number }> => {
    let peak = 0;
    let done = false;
    const sampler = (async () => {
      while (!done) {
        peak = Math.max(peak, (await stats()).rss);
        await new Promise((r) => setTimeout(r, 50));
      }
    })();
    const result = await work;
    done = true;
    await sampler;
    return { result, peak };
  };

  const before = await stats();
  const body = bigRequest(mib * MiB);
  const requests = await sampled(
    Promise.all(Array.from({ length: count }, () => send(`${first.url}/v1/messages`, body))),
  );
  const after = await stats();
  await new Promise((r) => setTimeout(r, 10_000));
  const idle = await stats();
  const afterGc = await stats('gc');
  const beforeAnswer = afterGc.rss;
  const answer = await sampled(send(`${first.url}/big`, undefined));
  proxy.send({ kind: 'stop' });
  await once(proxy, 'exit');
  upstream.close();

  const mb = (n: number) => Math.round(n / MiB);
  const statuses: Record<string, number> = {};
  for (const { status } of requests.result) statuses[status] = (statuses[status] ?? 0) + 1;
  const result = {
    largeRequests: {
      requests: count,
      mibEach: mib,
      statuses,
      rssMiB: {
        before: mb(before.rss),
        peak: mb(requests.peak),
        after: mb(after.rss),
        after10sIdle: mb(idle.rss),
        afterGc: mb(afterGc.rss),
      },
      heapUsedMiB: { after: mb(after.heapUsed), afterGc: mb(afterGc.heapUsed) },
      externalMiB: { after: mb(after.external), afterGc: mb(afterGc.external) },
    },
    largeAnswer: {
      mib: BIG_ANSWER_MIB,
      status: answer.result.status,
      relayedMiB: mb(answer.result.bytes),
      rssMiB: { before: mb(beforeAnswer), peak: mb(answer.peak) },
    },
  };
  console.log(JSON.stringify(result, null, 2));
  const dir = join(fileURLToPath(new URL('.', import.meta.url)), 'results');
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, 'proxy-memory.json'), `${JSON.stringify(result, null, 2)}\n`);
  return result;
}

if (process.argv[2] === '--child') {
  await child(process.argv[3]!);
} else if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await run(Number(process.argv[2] ?? 10), Number(process.argv[3] ?? 30));
}
