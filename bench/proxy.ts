// Proxy benchmark: added latency, throughput and time to first SSE byte, each beside going straight
// to the upstream, in one run. `node_modules/.bin/node bench/proxy.ts`; writes bench/results/proxy.json.
// Upstream and proxy run in worker threads so the client's own work does not count as proxy cost.
// A bare node:http forwarder (no pipeline, no logging) runs beside ours as a reference: the gap
// between the two is what the pipeline costs; the gap to direct is mostly node:http itself.
import { once } from 'node:events';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import pino from 'pino';

const SMALL_REQUEST = JSON.stringify({
  model: 'claude-sonnet-4-5',
  max_tokens: 1024,
  messages: [{ role: 'user', content: 'Reply with one short sentence about ribosomes.' }],
});
const SMALL_RESPONSE = JSON.stringify({
  id: 'msg_bench',
  type: 'message',
  role: 'assistant',
  model: 'claude-sonnet-4-5',
  content: [{ type: 'text', text: 'Ribosomes translate messenger RNA into proteins.' }],
  stop_reason: 'end_turn',
  usage: { input_tokens: 18, output_tokens: 9 },
});
const SSE_FIRST = 'event: message_start\ndata: {"type":"message_start"}\n\n';
const SSE_REST = 'event: message_stop\ndata: {"type":"message_stop"}\n\n';

const TARGETS = { addedP50SequentialMs: 0.5, throughputRatio: 0.8, firstSseByteAddedMs: 1 };

type Role = { role: 'upstream' } | { role: 'proxy'; targetUrl: string; logFile: string };

// ---------- worker side ----------

async function startUpstream(): Promise<string> {
  const body = Buffer.from(SMALL_RESPONSE);
  const server = http.createServer({ noDelay: true, keepAliveTimeout: 60_000 }, (req, res) => {
    if (req.url === '/sse') {
      req.resume();
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      res.write(SSE_FIRST);
      setImmediate(() => res.end(SSE_REST));
      return;
    }
    req.on('data', () => {});
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': body.length });
      res.end(body);
    });
  });
  return listen(server);
}

/** The least a node:http proxy does: pipe the request out and the response back. Reference only. */
async function startBareProxy(targetUrl: string): Promise<string> {
  const target = new URL(targetUrl);
  const agent = new http.Agent({ keepAlive: true });
  const server = http.createServer({ noDelay: true }, (req, res) => {
    const headers = { ...req.headers, host: target.host };
    delete headers.connection;
    const out = http.request(
      { agent, hostname: target.hostname, port: target.port, method: req.method, path: req.url, headers },
      (upstream) => {
        res.writeHead(upstream.statusCode ?? 502, upstream.headers);
        upstream.pipe(res);
      },
    );
    req.pipe(out);
  });
  return listen(server);
}

async function listen(server: http.Server): Promise<string> {
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  return `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
}

async function startProxyWorker(targetUrl: string, logFile: string): Promise<string[]> {
  const { ProxyRunner } = await import('../src/llm/proxy/runner.ts');
  const { createLoggingMiddleware } = await import('../src/llm/proxy/middleware/logging.ts');
  // Asynchronous file logging, as a server would configure pino; every request is logged.
  const logger = pino(pino.destination({ dest: logFile, sync: false }));
  const runner = new ProxyRunner({
    mode: 'passthrough',
    port: 0,
    targetUrl,
    logger,
    idleTimeoutMs: 600_000,
    middleware: [createLoggingMiddleware(logger)],
  });
  return [await runner.start(), await startBareProxy(targetUrl)];
}

if (!isMainThread && parentPort) {
  const role = workerData as Role;
  const urls =
    role.role === 'upstream' ? [await startUpstream()] : await startProxyWorker(role.targetUrl, role.logFile);
  parentPort.postMessage(urls);
}

// ---------- client side ----------

function startWorker(role: Role): Promise<{ urls: string[]; worker: Worker }> {
  const worker = new Worker(new URL(import.meta.url), { workerData: role });
  return new Promise((resolve, reject) => {
    worker.once('message', (urls: string[]) => resolve({ urls, worker }));
    worker.once('error', reject);
  });
}

const body = Buffer.from(SMALL_REQUEST);

/** One request; resolves with ms until the last byte (or the first body byte with `firstByte`). */
function timedRequest(
  agent: http.Agent,
  url: URL,
  method: 'POST' | 'GET',
  firstByte = false,
): Promise<number> {
  return new Promise((resolve, reject) => {
    const start = performance.now();
    const req = http.request(
      {
        agent,
        hostname: url.hostname,
        port: url.port,
        path: url.pathname + url.search,
        method,
        headers:
          method === 'POST'
            ? { 'content-type': 'application/json', 'content-length': body.length, 'x-api-key': 'bench' }
            : {},
      },
      (res) => {
        let first: number | undefined;
        res.on('data', () => {
          first ??= performance.now() - start;
        });
        res.on('end', () => resolve(firstByte && first !== undefined ? first : performance.now() - start));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(method === 'POST' ? body : undefined);
  });
}

function quantile(sorted: number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[index]!;
}

function median(values: number[]): number {
  return quantile(
    [...values].sort((a, b) => a - b),
    0.5,
  );
}

type Sample = { p50: number; p99: number; rps: number };

/** `total` requests, `concurrency` at a time; latency quantiles and requests per second. */
async function load(agent: http.Agent, url: URL, total: number, concurrency: number): Promise<Sample> {
  const latencies: number[] = [];
  let next = 0;
  const started = performance.now();
  async function lane() {
    while (next < total) {
      next += 1;
      latencies.push(await timedRequest(agent, url, 'POST'));
    }
  }
  await Promise.all(Array.from({ length: concurrency }, lane));
  const elapsed = performance.now() - started;
  latencies.sort((a, b) => a - b);
  return { p50: quantile(latencies, 0.5), p99: quantile(latencies, 0.99), rps: (total / elapsed) * 1000 };
}

async function firstSseByte(agent: http.Agent, url: URL, count: number): Promise<number> {
  const samples: number[] = [];
  for (let i = 0; i < count; i++) samples.push(await timedRequest(agent, url, 'GET', true));
  return median(samples);
}

const fmt = (value: number, digits = 3) => value.toFixed(digits);

type Side = 'direct' | 'proxy' | 'bare';
const SIDES: readonly Side[] = ['direct', 'proxy', 'bare'];
type Rounds = { seq: Sample[]; conc: Sample[]; sse: number[] };

function summarize(r: Rounds) {
  return {
    sequentialP50Ms: median(r.seq.map((s) => s.p50)),
    sequentialP99Ms: median(r.seq.map((s) => s.p99)),
    concurrent64P50Ms: median(r.conc.map((s) => s.p50)),
    concurrent64P99Ms: median(r.conc.map((s) => s.p99)),
    concurrent64Rps: median(r.conc.map((s) => s.rps)),
    firstSseByteMs: median(r.sse),
  };
}

/** Per-round differences against direct, then their median: drift between rounds cancels out. */
function addedOver(r: Rounds, direct: Rounds) {
  return {
    sequentialP50Ms: median(r.seq.map((s, i) => s.p50 - direct.seq[i]!.p50)),
    sequentialP99Ms: median(r.seq.map((s, i) => s.p99 - direct.seq[i]!.p99)),
    concurrent64P50Ms: median(r.conc.map((s, i) => s.p50 - direct.conc[i]!.p50)),
    concurrent64P99Ms: median(r.conc.map((s, i) => s.p99 - direct.conc[i]!.p99)),
    firstSseByteMs: median(r.sse.map((s, i) => s - direct.sse[i]!)),
    throughputRatio: median(r.conc.map((s, i) => s.rps / direct.conc[i]!.rps)),
  };
}

function printTable(result: Awaited<ReturnType<typeof measure>>) {
  const { direct, proxy, added, bareAdded } = result;
  const plus = (v: number) => `${v >= 0 ? '+' : ''}${fmt(v)}`;
  const rows: string[][] = [
    ['', 'direct', 'proxy', 'added', 'bare ref'],
    [
      'sequential p50 (ms)',
      fmt(direct.sequentialP50Ms),
      fmt(proxy.sequentialP50Ms),
      plus(added.sequentialP50Ms),
      plus(bareAdded.sequentialP50Ms),
    ],
    [
      'sequential p99 (ms)',
      fmt(direct.sequentialP99Ms),
      fmt(proxy.sequentialP99Ms),
      plus(added.sequentialP99Ms),
      plus(bareAdded.sequentialP99Ms),
    ],
    [
      'c=64 p50 (ms)',
      fmt(direct.concurrent64P50Ms),
      fmt(proxy.concurrent64P50Ms),
      plus(added.concurrent64P50Ms),
      plus(bareAdded.concurrent64P50Ms),
    ],
    [
      'c=64 p99 (ms)',
      fmt(direct.concurrent64P99Ms),
      fmt(proxy.concurrent64P99Ms),
      plus(added.concurrent64P99Ms),
      plus(bareAdded.concurrent64P99Ms),
    ],
    [
      'c=64 req/s',
      fmt(direct.concurrent64Rps, 0),
      fmt(proxy.concurrent64Rps, 0),
      `x${fmt(added.throughputRatio, 2)}`,
      `x${fmt(bareAdded.throughputRatio, 2)}`,
    ],
    [
      'first SSE byte (ms)',
      fmt(direct.firstSseByteMs),
      fmt(proxy.firstSseByteMs),
      plus(added.firstSseByteMs),
      plus(bareAdded.firstSseByteMs),
    ],
  ];
  for (const row of rows)
    console.log(row.map((cell, i) => (i === 0 ? cell.padEnd(20) : cell.padStart(10))).join(' '));
  const m = result.meetsTargets;
  console.log(
    `targets: added p50 < ${TARGETS.addedP50SequentialMs} ms ${m.addedP50Sequential ? 'met' : 'MISSED'}; ` +
      `req/s ratio >= ${TARGETS.throughputRatio} ${m.throughputRatio ? 'met' : 'MISSED'}; ` +
      `first SSE byte within ${TARGETS.firstSseByteAddedMs} ms ${m.firstSseByte ? 'met' : 'MISSED'}. ` +
      `${result.machine.cpus} CPUs, ${fmt(result.wallSeconds, 1)} s. "bare ref" = a plain node:http pipe proxy.`,
  );
}

async function measure(rounds: number) {
  const logFile = join(os.tmpdir(), `ribosome-proxy-bench-${process.pid}.log`);
  const upstream = await startWorker({ role: 'upstream' });
  const proxies = await startWorker({ role: 'proxy', targetUrl: upstream.urls[0]!, logFile });
  const bases: Record<Side, string> = {
    direct: upstream.urls[0]!,
    proxy: proxies.urls[0]!,
    bare: proxies.urls[1]!,
  };
  const messages = (side: Side) => new URL('/v1/messages?beta=true', bases[side]);
  const sse = (side: Side) => new URL('/sse', bases[side]);
  // Keep-alive on the client side too (each proxy keeps its own pool to the upstream).
  const sequentialAgent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const concurrentAgent = new http.Agent({ keepAlive: true, maxSockets: 64 });
  const started = performance.now();
  try {
    // Warm-up: JIT, sockets in every pool, the proxy's vendor parsing and logging paths.
    for (const side of SIDES) {
      await load(sequentialAgent, messages(side), 1000, 1);
      await load(concurrentAgent, messages(side), 3000, 64);
      await firstSseByte(sequentialAgent, sse(side), 100);
    }
    const per: Record<Side, Rounds> = {
      direct: { seq: [], conc: [], sse: [] },
      proxy: { seq: [], conc: [], sse: [] },
      bare: { seq: [], conc: [], sse: [] },
    };
    // Rounds alternate the sides so drift in a shared machine hits them alike.
    for (let round = 0; round < rounds; round++) {
      for (const side of SIDES) {
        per[side].seq.push(await load(sequentialAgent, messages(side), 1000, 1));
        per[side].conc.push(await load(concurrentAgent, messages(side), 4000, 64));
        per[side].sse.push(await firstSseByte(sequentialAgent, sse(side), 100));
      }
    }
    const added = addedOver(per.proxy, per.direct);
    return {
      date: new Date().toISOString(),
      machine: { cpus: os.cpus().length, node: process.version, platform: `${os.platform()} ${os.arch()}` },
      setup: {
        rounds,
        sequentialPerRound: 1000,
        concurrentPerRound: 4000,
        concurrency: 64,
        sseSamplesPerRound: 100,
      },
      direct: summarize(per.direct),
      proxy: summarize(per.proxy),
      bare: summarize(per.bare),
      added,
      bareAdded: addedOver(per.bare, per.direct),
      targets: TARGETS,
      meetsTargets: {
        addedP50Sequential: added.sequentialP50Ms < TARGETS.addedP50SequentialMs,
        throughputRatio: added.throughputRatio >= TARGETS.throughputRatio,
        firstSseByte: added.firstSseByteMs <= TARGETS.firstSseByteAddedMs,
      },
      wallSeconds: (performance.now() - started) / 1000,
    };
  } finally {
    sequentialAgent.destroy();
    concurrentAgent.destroy();
    await Promise.all([upstream.worker.terminate(), proxies.worker.terminate()]);
    await rm(logFile, { force: true });
  }
}

export type ProxyBenchResult = Awaited<ReturnType<typeof measure>>;

/** Runs the whole benchmark, prints a table, writes bench/results/proxy.json and returns the figures. */
export async function run(options: { rounds?: number; quiet?: boolean } = {}): Promise<ProxyBenchResult> {
  const result = await measure(options.rounds ?? 5);
  if (!options.quiet) printTable(result);
  const resultsDir = fileURLToPath(new URL('./results/', import.meta.url));
  await mkdir(resultsDir, { recursive: true });
  await writeFile(join(resultsDir, 'proxy.json'), `${JSON.stringify(result, null, 2)}\n`);
  return result;
}

if (isMainThread && process.argv[1] === fileURLToPath(import.meta.url)) {
  await run();
}
