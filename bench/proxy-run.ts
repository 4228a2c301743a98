/**
 * The proxy as a user runs it: a real `ribosome run --proxy` process (an idle plan; the proxy serves
 * without any codon running), beside a plain node:http pipe proxy in its own process, both in front of
 * one upstream in a third process that answers small Messages requests (JSON, and SSE when the body
 * says `"stream": true`). The same keep-alive undici pools on the client side for all three sides.
 * Per round: 400 sequential requests (p50) and 100 streamed ones (time to the first body byte), the
 * sides taking turns in blocks of 20; then 2000 at concurrency 64 (req/s), side after side. Added
 * latency = side minus direct in that round.
 * `npm run bench -- proxy-run`; PROXY_RUN_ROUNDS (default 5) scales it; PROXY_RUN_CPU_PROF=<dir> runs
 * the server and the pipe with `--cpu-prof` into <dir>; PROXY_RUN_PIN=1 pins the processes to CPUs
 * (below). BENCH_BASE_DIR=<another checkout> (e.g. `git worktree add /tmp/base <sha>` with its
 * node_modules) adds a fourth side, that checkout's `ribosome run --proxy`, measured in the same rounds
 * for a before/after. Writes bench/results/proxy-run.json.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { Pool } from 'undici';
import { isMain, median, percentile, round } from './stats.ts';

const NODE = process.execPath;
const HERE = import.meta.dirname;
const ROOT = join(HERE, '..');
const BIN = join(ROOT, 'bin/ribosome');
const EMPTY_PLAN = join(ROOT, 'examples/empty/plan.yaml');
/** Another checkout whose proxy runs beside this one's (a before/after in one run); absent: none. */
const BASE_DIR = process.env.BENCH_BASE_DIR || undefined;

const SEQUENTIAL = 400;
const CONCURRENT = 2000;
const CONCURRENCY = 64;
const SSE_SAMPLES = 100;
/** Sequential requests to one side before the next side's turn. */
const BLOCK = 20;
const TARGETS = { addedP50VsPipe: 1.2, throughputVsPipe: 0.9, firstSseByteAddedMs: 1 };
/**
 * PROXY_RUN_PIN=1: the client and the upstream on CPU 0, both proxies on CPU 1 (taskset), so that
 * where the scheduler happens to put a process does not move one side's latency and not the other's.
 */
const PIN = process.env.PROXY_RUN_PIN === '1';
const CLIENT_CPU = 0;
const PROXIES_CPU = 1;

const request = (stream: boolean) =>
  JSON.stringify({
    model: 'claude-sonnet-4-5',
    max_tokens: 1024,
    ...(stream ? { stream: true } : {}),
    messages: [{ role: 'user', content: 'Reply with one short sentence about ribosomes.' }],
  });
const JSON_REQUEST = request(false);
const SSE_REQUEST = request(true);
const JSON_ANSWER = Buffer.from(
  JSON.stringify({
    id: 'msg_bench',
    type: 'message',
    role: 'assistant',
    model: 'claude-sonnet-4-5',
    content: [{ type: 'text', text: 'Ribosomes translate messenger RNA into proteins.' }],
    stop_reason: 'end_turn',
    usage: { input_tokens: 18, output_tokens: 9 },
  }),
);
const SSE_FIRST = 'event: message_start\ndata: {"type":"message_start","message":{"id":"msg_bench"}}\n\n';
const SSE_REST =
  'event: content_block_delta\ndata: {"type":"content_block_delta","delta":{"text":"Ribosomes."}}\n\n' +
  'event: message_stop\ndata: {"type":"message_stop"}\n\n';

// ---------- child processes: the upstream and the pipe proxy ----------

function listenAndSay(server: http.Server): void {
  // Exit on SIGTERM, so a `--cpu-prof` profile gets written.
  process.once('SIGTERM', () => process.exit(0));
  server.listen(0, '127.0.0.1', () => {
    const address = server.address();
    console.log(`port ${typeof address === 'object' && address ? address.port : 0}`);
  });
}

/** Answers `POST /v1/messages`: JSON, or an SSE stream whose first event leaves at once. */
function upstream(): void {
  const server = http.createServer({ noDelay: true, keepAliveTimeout: 60_000 }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const stream = Buffer.concat(chunks).includes('"stream":true');
      if (!stream) {
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': JSON_ANSWER.length });
        res.end(JSON_ANSWER);
        return;
      }
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      res.write(SSE_FIRST);
      setImmediate(() => res.end(SSE_REST));
    });
  });
  listenAndSay(server);
}

/** The least a node:http proxy does: pipe the request out and the response back. */
function pipe(targetUrl: string): void {
  const target = new URL(targetUrl);
  const agent = new http.Agent({ keepAlive: true });
  const server = http.createServer({ noDelay: true }, (req, res) => {
    const headers = { ...req.headers, host: target.host };
    delete headers.connection;
    const out = http.request(
      { agent, hostname: target.hostname, port: target.port, method: req.method, path: req.url, headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    out.on('error', () => res.destroy());
    req.pipe(out);
  });
  listenAndSay(server);
}

// ---------- the bench ----------

type Side = 'direct' | 'proxy' | 'pipe' | 'base';
const SIDES: readonly Side[] = BASE_DIR ? ['direct', 'proxy', 'pipe', 'base'] : ['direct', 'proxy', 'pipe'];
type Process = { child: ChildProcess; port: number };

const children = new Set<ChildProcess>();

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // Already gone.
  }
}

/** Starts a process in its own group and resolves with the port its first matching line names. */
function startProcess(
  command: string,
  args: string[],
  pattern: RegExp,
  env: NodeJS.ProcessEnv,
  cpu?: number,
): Promise<Process> {
  // taskset execs the command: the pid (and its CPU time) is the command's.
  const pinned = PIN && cpu !== undefined;
  const child = spawn(pinned ? 'taskset' : command, pinned ? ['-c', String(cpu), command, ...args] : args, {
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...env },
  });
  children.add(child);
  child.once('exit', () => children.delete(child));
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => {
    stderr += d.toString();
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${args.join(' ')} did not start: ${stderr}`)), 30_000);
    const lines = createInterface({ input: child.stdout! });
    lines.on('line', (line) => {
      const match = pattern.exec(line);
      if (!match?.[1]) return;
      clearTimeout(timer);
      lines.removeAllListeners('line');
      child.stdout?.resume();
      resolve({ child, port: Number(match[1]) });
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${args.join(' ')} exited with ${code}: ${stderr}`));
    });
  });
}

/**
 * `ribosome run --proxy` on an idle plan (no codon: the proxy serves all the same). Its main port is
 * dynamic and the proxy takes that + 1, which another process may hold: then it is started again.
 */
async function startServer(
  upstreamUrl: string,
  execution: string,
  env: NodeJS.ProcessEnv,
  bin = BIN,
): Promise<Process & { execution: string }> {
  const args = ['run', EMPTY_PLAN, '--headless', '--proxy', '--provider-base-url', upstreamUrl];
  for (let attempt = 1; ; attempt++) {
    const dir = `${execution}-${attempt}`;
    try {
      const started = await startProcess(
        bin,
        [...args, '--execution', dir],
        /^listening ws:\/\/[^:]+:(\d+)$/,
        env,
        PROXIES_CPU,
      );
      return { ...started, execution: dir };
    } catch (error) {
      if (attempt >= 3 || !String(error).includes('in use')) throw error;
    }
  }
}

/** Stops a process with SIGTERM (so a CPU profile is written), SIGKILL after 10 s. */
async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  killGroup(child, 'SIGTERM');
  const timer = setTimeout(() => killGroup(child, 'SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}

/** CPU time (user + system) a process used so far, in ms (Linux /proc; 0 elsewhere). */
function cpuMs(pid: number | undefined): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  } catch {
    return 0;
  }
}

const HEADERS = {
  'content-type': 'application/json',
  'x-api-key': 'bench',
  'anthropic-version': '2023-06-01',
};

/** One request; ms until its last byte, or until its first body byte with `firstByte`. */
async function timed(pool: Pool, body: string, firstByte: boolean): Promise<number> {
  const start = performance.now();
  const answer = await pool.request({
    path: '/v1/messages?beta=true',
    method: 'POST',
    headers: HEADERS,
    body,
  });
  let first: number | undefined;
  for await (const _chunk of answer.body) first ??= performance.now() - start;
  if (answer.statusCode !== 200) throw new Error(`status ${answer.statusCode}`);
  return firstByte && first !== undefined ? first : performance.now() - start;
}

async function sequential(
  pool: Pool,
  count: number,
  body = JSON_REQUEST,
  firstByte = false,
): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < count; i++) times.push(await timed(pool, body, firstByte));
  return times.sort((a, b) => a - b);
}

/** Requests for every side in blocks of BLOCK, side after side; each side's times, sorted. */
async function interleaved(
  pools: Record<Side, Pool>,
  count: number,
  body: string,
  firstByte: boolean,
): Promise<Record<Side, number[]>> {
  const times = Object.fromEntries(SIDES.map((side) => [side, [] as number[]])) as Record<Side, number[]>;
  for (let done = 0; done < count; done += BLOCK) {
    for (const side of SIDES) {
      for (let i = 0; i < Math.min(BLOCK, count - done); i++)
        times[side].push(await timed(pools[side], body, firstByte));
    }
  }
  for (const side of SIDES) times[side].sort((a, b) => a - b);
  return times;
}

async function concurrent(pool: Pool, total: number): Promise<number> {
  let next = 0;
  const started = performance.now();
  const lane = async () => {
    while (next < total) {
      next += 1;
      await timed(pool, JSON_REQUEST, false);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, lane));
  return (total / (performance.now() - started)) * 1000;
}

type Round = { p50: number; p99: number; rps: number; sse: number; cpuMsPerRequest: number };

async function measure(rounds: number, profileDir: string | undefined) {
  const temp = mkdtempSync(join(tmpdir(), 'ribosome-proxy-run-'));
  // PROXY_RUN_SERVER_NODE_OPTIONS: extra Node options for the server alone (e.g. GC flags to compare).
  const serverOptions = process.env.PROXY_RUN_SERVER_NODE_OPTIONS ?? '';
  const profEnv = (name: string): NodeJS.ProcessEnv => {
    const options = [
      profileDir ? `--cpu-prof --cpu-prof-dir=${join(profileDir, name)}` : '',
      name === 'server' ? serverOptions : '',
    ].filter(Boolean);
    return options.length > 0 ? { NODE_OPTIONS: options.join(' ') } : {};
  };
  const pools: Pool[] = [];
  try {
    if (PIN) execFileSync('taskset', ['-pc', String(CLIENT_CPU), String(process.pid)], { stdio: 'ignore' });
    const up = await startProcess(NODE, [import.meta.filename, '--upstream'], /^port (\d+)$/, {}, CLIENT_CPU);
    const upstreamUrl = `http://127.0.0.1:${up.port}`;
    const [server, pipeProc] = await Promise.all([
      startServer(upstreamUrl, join(temp, 'exec'), profEnv('server')),
      startProcess(
        NODE,
        [import.meta.filename, '--pipe', upstreamUrl],
        /^port (\d+)$/,
        profEnv('pipe'),
        PROXIES_CPU,
      ),
    ]);
    // Started after the server: two servers starting at once may take each other's port + 1.
    const base = BASE_DIR
      ? await startServer(upstreamUrl, join(temp, 'base'), profEnv('base'), join(BASE_DIR, 'bin/ribosome'))
      : undefined;
    const ports: Record<Side, number> = {
      direct: up.port,
      proxy: server.port + 1,
      pipe: pipeProc.port,
      base: base ? base.port + 1 : 0,
    };
    const pids: Record<Side, number | undefined> = {
      direct: up.child.pid,
      proxy: server.child.pid,
      pipe: pipeProc.child.pid,
      base: base?.child.pid,
    };
    const pool = (side: Side, connections: number) => {
      const p = new Pool(`http://127.0.0.1:${ports[side]}`, { connections, pipelining: 1 });
      pools.push(p);
      return p;
    };
    const one = Object.fromEntries(SIDES.map((side) => [side, pool(side, 1)])) as Record<Side, Pool>;
    const many = Object.fromEntries(SIDES.map((side) => [side, pool(side, CONCURRENCY)])) as Record<
      Side,
      Pool
    >;
    const started = performance.now();
    // Warm-up: JIT, sockets in every pool, the proxy's parsing and logging paths.
    for (const side of SIDES) {
      await sequential(one[side], SEQUENTIAL);
      await concurrent(many[side], CONCURRENT);
      await sequential(one[side], SSE_SAMPLES, SSE_REQUEST, true);
    }
    const per: Record<Side, Round[]> = { direct: [], proxy: [], pipe: [], base: [] };
    for (let r = 0; r < rounds; r++) {
      // Sequential and first-byte times interleaved in small blocks, side after side, before any burst:
      // a side measured right after another side's burst would pay for that process's catching up
      // (its GC, its log writes) on the shared CPU.
      const seq = await interleaved(one, SEQUENTIAL, JSON_REQUEST, false);
      const sse = await interleaved(one, SSE_SAMPLES, SSE_REQUEST, true);
      const bursts: Partial<Record<Side, { rps: number; cpuMsPerRequest: number }>> = {};
      // Rotate which side goes first, so drift on a shared machine hits all alike.
      for (let k = 0; k < SIDES.length; k++) {
        const side = SIDES[(r + k) % SIDES.length]!;
        const cpuBefore = cpuMs(pids[side]);
        const rps = await concurrent(many[side], CONCURRENT);
        bursts[side] = { rps, cpuMsPerRequest: (cpuMs(pids[side]) - cpuBefore) / CONCURRENT };
      }
      for (const side of SIDES) {
        per[side].push({
          p50: percentile(seq[side], 50),
          p99: percentile(seq[side], 99),
          rps: bursts[side]!.rps,
          sse: percentile(sse[side], 50),
          cpuMsPerRequest: bursts[side]!.cpuMsPerRequest,
        });
      }
    }
    const wallSeconds = (performance.now() - started) / 1000;
    await Promise.all(pools.map((p) => p.close()));
    pools.length = 0;
    await Promise.all([
      stop(server.child),
      stop(pipeProc.child),
      stop(up.child),
      ...(base ? [stop(base.child)] : []),
    ]);
    const log = readFileSync(join(server.execution, '.ribosome/logs/server.log'), 'utf8');
    const loggedRequests = log.split('[LOGGING-MIDDLEWARE] request').length - 1;
    return { per, wallSeconds, loggedRequests };
  } finally {
    await Promise.all(pools.map((p) => p.destroy()));
    for (const child of children) killGroup(child, 'SIGKILL');
    rmSync(temp, { recursive: true, force: true });
  }
}

function summarize(per: Record<Side, Round[]>) {
  const added = (side: Exclude<Side, 'direct'>, key: 'p50' | 'p99' | 'sse') =>
    median(per[side].map((s, i) => s[key] - per.direct[i]![key]));
  const side = (s: Side) => ({
    sequentialP50Ms: round(median(per[s].map((r) => r.p50)), 3),
    sequentialP99Ms: round(median(per[s].map((r) => r.p99)), 3),
    concurrent64Rps: round(median(per[s].map((r) => r.rps)), 0),
    firstSseByteMs: round(median(per[s].map((r) => r.sse)), 3),
    cpuMsPerRequest: round(median(per[s].map((r) => r.cpuMsPerRequest)), 3),
  });
  const proxyAdded = added('proxy', 'p50');
  const pipeAdded = added('pipe', 'p50');
  const ratios = {
    addedP50VsPipe: round(proxyAdded / pipeAdded, 2),
    throughputVsPipe: round(median(per.proxy.map((s, i) => s.rps / per.pipe[i]!.rps)), 2),
    throughputVsDirect: round(median(per.proxy.map((s, i) => s.rps / per.direct[i]!.rps)), 2),
    firstSseByteAddedMs: round(added('proxy', 'sse'), 3),
    pipeFirstSseByteAddedMs: round(added('pipe', 'sse'), 3),
    proxyAddedP50Ms: round(proxyAdded, 3),
    pipeAddedP50Ms: round(pipeAdded, 3),
    proxyAddedP99Ms: round(added('proxy', 'p99'), 3),
    pipeAddedP99Ms: round(added('pipe', 'p99'), 3),
  };
  const baseAdded = per.base.length > 0 ? added('base', 'p50') : undefined;
  const baseRatios =
    baseAdded === undefined
      ? undefined
      : {
          addedP50VsPipe: round(baseAdded / pipeAdded, 2),
          throughputVsPipe: round(median(per.base.map((s, i) => s.rps / per.pipe[i]!.rps)), 2),
          firstSseByteAddedMs: round(added('base', 'sse'), 3),
          addedP50Ms: round(baseAdded, 3),
          addedP99Ms: round(added('base', 'p99'), 3),
          /** This checkout's added p50 over the base's, per round, median: below 1 is faster. */
          addedP50VsBase: round(
            median(
              per.proxy.map((s, i) => (s.p50 - per.direct[i]!.p50) / (per.base[i]!.p50 - per.direct[i]!.p50)),
            ),
            2,
          ),
        };
  return {
    direct: side('direct'),
    proxy: side('proxy'),
    pipe: side('pipe'),
    ...(baseRatios ? { base: { dir: BASE_DIR, ...side('base'), ratios: baseRatios } } : {}),
    ratios,
    meetsTargets: {
      addedP50: ratios.addedP50VsPipe <= TARGETS.addedP50VsPipe,
      throughput: ratios.throughputVsPipe >= TARGETS.throughputVsPipe,
      firstSseByte: ratios.firstSseByteAddedMs <= TARGETS.firstSseByteAddedMs,
    },
  };
}

export async function run() {
  const rounds = Number(process.env.PROXY_RUN_ROUNDS ?? 5);
  const profileDir = process.env.PROXY_RUN_CPU_PROF || undefined;
  const { per, wallSeconds, loggedRequests } = await measure(rounds, profileDir);
  const summary = summarize(per);
  const { direct, proxy, pipe: bare, ratios, meetsTargets } = summary;
  const rows: Array<[string, string | number, string | number, string | number, string]> = [
    ['', 'direct', 'ribosome', 'pipe', 'ribosome / pipe'],
    [
      'seq p50 (ms)',
      direct.sequentialP50Ms,
      proxy.sequentialP50Ms,
      bare.sequentialP50Ms,
      `added +${ratios.proxyAddedP50Ms} vs +${ratios.pipeAddedP50Ms}: x${ratios.addedP50VsPipe}`,
    ],
    [
      'seq p99 (ms)',
      direct.sequentialP99Ms,
      proxy.sequentialP99Ms,
      bare.sequentialP99Ms,
      `added +${ratios.proxyAddedP99Ms} vs +${ratios.pipeAddedP99Ms}`,
    ],
    [
      `c=${CONCURRENCY} req/s`,
      direct.concurrent64Rps,
      proxy.concurrent64Rps,
      bare.concurrent64Rps,
      `x${ratios.throughputVsPipe} (x${ratios.throughputVsDirect} of direct)`,
    ],
    [
      'first SSE byte (ms)',
      direct.firstSseByteMs,
      proxy.firstSseByteMs,
      bare.firstSseByteMs,
      `added +${ratios.firstSseByteAddedMs} vs +${ratios.pipeFirstSseByteAddedMs}`,
    ],
    [
      'CPU ms / request',
      direct.cpuMsPerRequest,
      proxy.cpuMsPerRequest,
      bare.cpuMsPerRequest,
      `x${round(proxy.cpuMsPerRequest / bare.cpuMsPerRequest, 2)}`,
    ],
  ];
  for (const row of rows) {
    console.log(
      row.map((cell, i) => (i === 0 ? String(cell).padEnd(20) : String(cell).padStart(10))).join(' '),
    );
  }
  if (summary.base) {
    const { base } = summary;
    console.log(
      `base ${base.dir}: seq p50 ${base.sequentialP50Ms} ms, added +${base.ratios.addedP50Ms}: ` +
        `x${base.ratios.addedP50VsPipe} the pipe's; c=${CONCURRENCY} ${base.concurrent64Rps} req/s ` +
        `(x${base.ratios.throughputVsPipe}); first SSE byte added +${base.ratios.firstSseByteAddedMs}; ` +
        `CPU ms / request ${base.cpuMsPerRequest}. This checkout's added p50 / the base's, per round: ` +
        `x${base.ratios.addedP50VsBase}`,
    );
  }
  const verdict = (ok: boolean) => (ok ? 'met' : 'MISSED');
  console.log(
    `targets: added p50 <= ${TARGETS.addedP50VsPipe}x the pipe's ${verdict(meetsTargets.addedP50)}; ` +
      `c=${CONCURRENCY} req/s >= ${TARGETS.throughputVsPipe}x the pipe's ${verdict(meetsTargets.throughput)}; ` +
      `first SSE byte within ${TARGETS.firstSseByteAddedMs} ms of direct ${verdict(meetsTargets.firstSseByte)}. ` +
      `${rounds} rounds, ${round(wallSeconds, 1)} s; the server logged ${loggedRequests} requests.`,
  );
  const result = {
    date: new Date().toISOString(),
    machine: { node: process.version, cpus: (await import('node:os')).cpus().length },
    setup: {
      rounds,
      sequential: SEQUENTIAL,
      concurrent: CONCURRENT,
      concurrency: CONCURRENCY,
      sseSamples: SSE_SAMPLES,
    },
    ...summary,
    targets: TARGETS,
    loggedRequests,
    wallSeconds: round(wallSeconds, 1),
  };
  const dir = join(HERE, 'results');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'proxy-run.json'), `${JSON.stringify(result, null, 2)}\n`);
  return result;
}

if (process.argv[2] === '--upstream') upstream();
else if (process.argv[2] === '--pipe') pipe(process.argv[3]!);
else if (isMain(import.meta.url)) await run();
