/**
 * Fan-out benchmark (issue: protocol server). Publishes `info` events through the real runtime
 * (journal + bus + WebSocket fan-out) and through a bare `ws` broadcast loop, to the same clients,
 * in the same run: delivered events/s, publish-to-receive latency, server RSS. The clients live in
 * processes of their own (bench/fanout-clients.ts, BENCH_FANOUT_CLIENT_PROCS of them), each with its
 * CPU time and event-loop delay, so that the latency they see is told apart from their own queueing:
 * a run whose client side was saturated says so, and the server side is reported beside it.
 * Knobs: BENCH_DURATION_MS, BENCH_FANOUT=tail, BENCH_BASE_DIR (below), BENCH_FANOUT_CLIENT_PROCS,
 * BENCH_SERVER_NODE_ARGS and BENCH_CLIENT_NODE_ARGS (e.g. "--cpu-prof"), BENCH_JOURNAL_SYNC=normal
 * (the publisher's commits without their fsync, to see the disk's part).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { ClientShareResult } from './fanout-clients.ts';
import { startFsyncFloor } from './fsync-floor.ts';
import { type LeanClient, leanClient } from './lean-ws-client.ts';
import { isMain, mb, median, percentile, round } from './stats.ts';

const NODE = process.execPath;
const HERE = import.meta.dirname;
const now = () => performance.timeOrigin + performance.now();

/** `base`: the ribosome publisher of another checkout (BENCH_BASE_DIR), e.g. main, for a before/after. */
type Kind = 'ribosome' | 'bare' | 'base';
const BASE_DIR = process.env.BENCH_BASE_DIR;
type Scenario = { kind: Kind; clients: number; rate: number; durationMs: number; stalled?: boolean };
export type FanoutResult = Scenario & {
  deliveredPerSec: number;
  eventsPerSec: number;
  /** Client side: from the event's making to its arrival at a sampled client, in another process. */
  p50Ms: number;
  p99Ms: number;
  /** The client processes, the busiest one's CPU share of the measured span and its event-loop p99. */
  clientProcesses: number;
  clientCpuShare: number;
  clientLoopP99Ms: number;
  clientLoopMaxMs: number;
  /** True when a client process was the bottleneck (busy most of the span): its latencies include its own queueing. */
  clientSaturated: boolean;
  /** True when a client process ran late without being busy: the machine was (other work on its cores). */
  clientStarved: boolean;
  /** The machine's load average (1 min) when the scenario started. */
  load: number;
  serverP50Ms: number;
  serverStartRssMb: number;
  serverMaxRssMb: number;
  serverCpuUsPerDelivery: number;
  published: number;
  /** Server side: event-loop delay, and the time each journal commit (with its fsync) took. */
  loopP99Ms: number;
  loopMaxMs: number;
  commitP99Ms: number;
  commitMaxMs: number;
  /** From an event's making to its frames queued for every client (the server's part of p99). */
  serverP99Ms: number;
  /** The largest the journal's WAL file grew during the run (not reported by an older publisher). */
  walMaxMb?: number;
  /** The disk's own fdatasync p99 during the run (bench/fsync-floor.ts): what a commit cannot beat. */
  fsyncFloorP99Ms: number;
  /** Journal commits during the run, and the share of the run they held the event loop. */
  commits: number;
  commitLoopShare: number;
};

function startPublisher(
  kind: Kind,
): Promise<{ child: ChildProcess; port: number; lines: AsyncIterator<string> }> {
  // BENCH_SERVER_NODE_ARGS (e.g. "--trace-gc") goes to the publisher's node.
  const nodeArgs = process.env.BENCH_SERVER_NODE_ARGS?.split(' ').filter(Boolean) ?? [];
  const script = kind === 'base' ? join(BASE_DIR!, 'bench/fanout-server.ts') : join(HERE, 'fanout-server.ts');
  const child = spawn(NODE, [...nodeArgs, script, kind === 'base' ? 'ribosome' : kind], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  // It exits by itself after `done`: a last ack may find its stdin closed.
  child.stdin!.on('error', () => {});
  const all = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
  // Lines of the protocol (port, done); anything else the child's node prints (--trace-gc) goes to stderr.
  const lines: AsyncIterator<string> = {
    next: async () => {
      for (;;) {
        const line = await all.next();
        if (line.done || /^(port|done) /.test(line.value)) return line;
        process.stderr.write(`${line.value}\n`);
      }
    },
  };
  return lines.next().then(({ value }) => {
    const port = Number(String(value).split(' ')[1]);
    if (!port) throw new Error(`publisher did not start: ${value}`);
    return { child, port, lines };
  });
}

/** How many processes the clients are spread over (BENCH_FANOUT_CLIENT_PROCS, default 2). */
const CLIENT_PROCS = Math.max(1, Number(process.env.BENCH_FANOUT_CLIENT_PROCS ?? 2));
/** A client process busy more than this share of the measured span is saturated. */
const SATURATED_CPU_SHARE = 0.85;
/** A client process whose event loop ran this late (p99) without being busy was starved by the machine. */
const LATE_LOOP_P99_MS = 20;

type ClientShare = {
  child: ChildProcess;
  /** The fewest events any of its clients received, as it last said. */
  min: number;
  result: Promise<ClientShareResult>;
};

/** Starts the clients in `CLIENT_PROCS` processes of their own (bench/fanout-clients.ts), all connected. */
async function startClients(kind: Kind, port: number, count: number): Promise<ClientShare[]> {
  const procs = Math.min(CLIENT_PROCS, count);
  const shares: ClientShare[] = [];
  const ready: Promise<void>[] = [];
  let first = 0;
  for (let p = 0; p < procs; p++) {
    const n = Math.floor(count / procs) + (p < count % procs ? 1 : 0);
    // BENCH_CLIENT_NODE_ARGS (e.g. "--trace-gc") goes to the client processes' node.
    const nodeArgs = process.env.BENCH_CLIENT_NODE_ARGS?.split(' ').filter(Boolean) ?? [];
    const args = [String(port), String(n), String(first), kind === 'bare' ? '0' : '1'];
    const child = spawn(NODE, [...nodeArgs, join(HERE, 'fanout-clients.ts'), ...args], {
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    first += n;
    child.stdin!.on('error', () => {});
    const lines = createInterface({ input: child.stdout! });
    let resolveResult: (r: ClientShareResult) => void = () => {};
    const share: ClientShare = { child, min: 0, result: new Promise((r) => (resolveResult = r)) };
    ready.push(
      new Promise((resolve, reject) => {
        child.once('exit', (code) =>
          reject(new Error(`a client process exited (${code}) before it was ready`)),
        );
        lines.on('line', (line) => {
          if (line === 'ready') resolve();
          else if (line.startsWith('min ')) share.min = Number(line.slice(4));
          else if (line.startsWith('result ')) resolveResult(JSON.parse(line.slice(7)) as ClientShareResult);
        });
      }),
    );
    shares.push(share);
  }
  await Promise.all(ready);
  return shares;
}

/** A lone client in this process that never reads (the stalled one): it costs nothing to hold. */
async function stalledClient(kind: Kind, port: number): Promise<LeanClient> {
  const client = await leanClient(port, {
    ...(kind !== 'bare' ? { hello: '{"type":"handshake","data":{"mode":"readonly"}}', skipFrames: 2 } : {}),
    wantPayload: false,
    onFrame: () => {},
  });
  client.socket.pause();
  return client;
}

export async function runScenario(s: Scenario): Promise<FanoutResult> {
  const load = loadavg()[0] ?? 0;
  const { child, port, lines } = await startPublisher(s.kind);
  const shares = await startClients(s.kind, port, s.clients);
  const stalled = s.stalled ? await stalledClient(s.kind, port) : undefined;
  const slowest = () => Math.min(...shares.map((x) => x.min));
  const acker = setInterval(() => child.stdin!.write(`ack ${slowest()}\n`), 10);
  const started = now();
  const floor = startFsyncFloor();
  for (const share of shares) share.child.stdin!.write('go\n');
  child.stdin!.write(`go ${s.rate} ${s.durationMs} 2000\n`);
  const done = await lines.next();
  // The publisher stops after `done`: no more acks (a write to its closed stdin would throw EPIPE).
  clearInterval(acker);
  const stats = JSON.parse(String(done.value).slice(5)) as {
    published: number;
    startRss: number;
    maxRss: number;
    cpuMs: number;
    loopP99Ms: number;
    loopMaxMs: number;
    commitP99Ms: number;
    commitMaxMs: number;
    serverP50Ms: number;
    serverP99Ms: number;
    commits: number;
    commitTotalMs: number;
    walMax?: number;
  };
  const fsyncFloor = await floor.stop();
  // Let in-flight events land, bounded.
  const deadline = now() + 5_000;
  while (now() < deadline && slowest() < stats.published) await new Promise((r) => setTimeout(r, 20));
  const elapsed = (now() - started) / 1000;
  for (const share of shares) share.child.stdin!.write('stop\n');
  const clientResults = await Promise.all(shares.map((x) => x.result));
  stalled?.close();
  // The publisher stops by itself after `done` (a profile it writes at exit is kept); if not, killed.
  await new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    child.once('exit', () => resolve(clearTimeout(timer)));
  });
  const sorted = Float64Array.from(clientResults.flatMap((r) => r.latencies)).sort();
  const total = clientResults.reduce((sum, r) => sum + r.frames, 0);
  const clientCpuShare = Math.max(...clientResults.map((r) => r.cpuMs / Math.max(1, r.wallMs)));
  const clientLoopP99Ms = Math.max(...clientResults.map((r) => r.loopP99Ms));
  const clientLoopMaxMs = Math.max(...clientResults.map((r) => r.loopMaxMs));
  return {
    ...s,
    published: stats.published,
    deliveredPerSec: round(total / elapsed, 0),
    eventsPerSec: round(stats.published / elapsed, 0),
    p50Ms: round(percentile(sorted, 50)),
    p99Ms: round(percentile(sorted, 99)),
    clientProcesses: shares.length,
    clientCpuShare: round(clientCpuShare),
    clientLoopP99Ms: round(clientLoopP99Ms),
    clientLoopMaxMs: round(clientLoopMaxMs),
    clientSaturated: clientCpuShare > SATURATED_CPU_SHARE,
    clientStarved: clientCpuShare <= SATURATED_CPU_SHARE && clientLoopP99Ms > LATE_LOOP_P99_MS,
    load: round(load),
    serverP50Ms: round(stats.serverP50Ms ?? Number.NaN),
    serverStartRssMb: mb(stats.startRss),
    serverMaxRssMb: mb(stats.maxRss),
    serverCpuUsPerDelivery: round((stats.cpuMs * 1000) / Math.max(1, total)),
    loopP99Ms: round(stats.loopP99Ms),
    loopMaxMs: round(stats.loopMaxMs),
    commitP99Ms: round(stats.commitP99Ms),
    commitMaxMs: round(stats.commitMaxMs),
    serverP99Ms: round(stats.serverP99Ms ?? Number.NaN),
    fsyncFloorP99Ms: fsyncFloor.p99Ms,
    ...(stats.walMax !== undefined ? { walMaxMb: mb(stats.walMax) } : {}),
    commits: stats.commits,
    commitLoopShare: round(stats.commitTotalMs / s.durationMs),
  };
}

/**
 * Throughput at 100 and 1 000 clients (rate 0: as fast as the slowest client takes them), then the
 * tail at 5 000 events/s to 100 clients three times, each beside the bare loop (issue 16: p99 under
 * 50 ms in three runs out of three), then the same with one stalled client. `BENCH_FANOUT=tail`
 * runs the tail part alone. BENCH_BASE_DIR=<another checkout> (e.g. `git worktree add /tmp/base
 * main`) runs its publisher too in each round of the tail, as `base`: a before/after in one run.
 * runs the tail part alone.
 */
export async function run(
  options: { durationMs?: number; only?: 'tail' } = {
    durationMs: Number(process.env.BENCH_DURATION_MS ?? 10_000),
    ...(process.env.BENCH_FANOUT === 'tail' ? { only: 'tail' as const } : {}),
  },
) {
  const durationMs = options.durationMs ?? 10_000;
  const results: FanoutResult[] = [];
  if (options.only !== 'tail') {
    for (const clients of [100, 1000]) {
      for (const kind of ['bare', 'ribosome'] as const) {
        results.push(await runScenario({ kind, clients, rate: 0, durationMs }));
      }
    }
  }
  const tailKinds: Kind[] = BASE_DIR ? ['bare', 'base', 'ribosome'] : ['bare', 'ribosome'];
  for (let i = 0; i < 3; i++) {
    for (const kind of tailKinds) {
      results.push(
        await runScenario({ kind, clients: 100, rate: 5000, durationMs: Math.min(durationMs, 5_000) }),
      );
    }
  }
  if (options.only !== 'tail') {
    results.push(
      await runScenario({ kind: 'ribosome', clients: 100, rate: 5000, durationMs, stalled: true }),
    );
  }
  const ratio = (clients: number) => {
    const r = results.find((x) => x.kind === 'ribosome' && x.clients === clients && x.rate === 0);
    const b = results.find((x) => x.kind === 'bare' && x.clients === clients && x.rate === 0);
    return r && b ? round(r.deliveredPerSec / b.deliveredPerSec) : undefined;
  };
  // The server's part of the tail, for a loaded machine: event-loop delay, commit time, frames queued.
  const side = (kind: Kind, key: 'p99Ms' | 'serverP99Ms' | 'loopP99Ms' | 'commitP99Ms' | 'fsyncFloorP99Ms') =>
    results.filter((x) => x.kind === kind && x.rate === 5000 && !x.stalled).map((x) => x[key]);
  const tail = (kind: Kind) => side(kind, 'p99Ms');
  const serverSide = (kind: Kind) => ({
    serverP99Ms: median(side(kind, 'serverP99Ms')),
    loopP99Ms: median(side(kind, 'loopP99Ms')),
    commitP99Ms: median(side(kind, 'commitP99Ms')),
    fsyncFloorP99Ms: median(side(kind, 'fsyncFloorP99Ms')),
  });
  const tailRuns = results.filter((x) => x.kind === 'ribosome' && x.rate === 5000 && !x.stalled);
  const summary = {
    throughputRatio100: ratio(100),
    throughputRatio1000: ratio(1000),
    /** Client side (end to end, clients in processes of their own), then the server's own part. */
    tailP99Ms: tail('ribosome'),
    tailRunsUnder50Ms: `${tail('ribosome').filter((p) => p < 50).length}/3`,
    tailServerP50Ms: tailRuns.map((x) => x.serverP50Ms),
    tailServerP99Ms: tailRuns.map((x) => x.serverP99Ms),
    tailClientSaturated: tailRuns.map((x) => x.clientSaturated),
    tailClientStarved: tailRuns.map((x) => x.clientStarved),
    /** The longest a client process's event loop stalled in each run: a stall shows in the client p99. */
    tailClientLoopMaxMs: tailRuns.map((x) => x.clientLoopMaxMs),
    tailLoad: tailRuns.map((x) => x.load),
    bareTailP99Ms: tail('bare'),
    tailP99RatioToBare: round(median(tail('ribosome')) / median(tail('bare'))),
    tailServerSideMedians: serverSide('ribosome'),
    ...(BASE_DIR
      ? {
          baseTailP99Ms: tail('base'),
          baseTailRunsUnder50Ms: `${tail('base').filter((p) => p < 50).length}/3`,
          tailP99RatioToBase: round(median(tail('ribosome')) / median(tail('base'))),
          baseServerSideMedians: serverSide('base'),
        }
      : {}),
  };
  console.table(
    results.map((r) => ({
      kind: r.kind,
      clients: r.clients,
      rate: r.rate,
      stalled: r.stalled ?? false,
      deliveredPerSec: r.deliveredPerSec,
      p50Ms: r.p50Ms,
      p99Ms: r.p99Ms,
      clientCpu: r.clientCpuShare,
      clientLoopP99Ms: r.clientLoopP99Ms,
      clientLoopMaxMs: r.clientLoopMaxMs,
      serverP50Ms: r.serverP50Ms,
      serverP99Ms: r.serverP99Ms,
      loopP99Ms: r.loopP99Ms,
      commitP99Ms: r.commitP99Ms,
      fsyncFloorP99Ms: r.fsyncFloorP99Ms,
      commitLoopShare: r.commitLoopShare,
      cpuUsPerDelivery: r.serverCpuUsPerDelivery,
      maxRssMb: r.serverMaxRssMb,
      walMaxMb: r.walMaxMb,
    })),
  );
  console.log(summary);
  for (const r of results.filter((x) => x.clientSaturated || x.clientStarved)) {
    const what = `${r.kind}, ${r.clients} clients, rate ${r.rate || 'max'}`;
    const seen = `its busiest client process used ${Math.round(r.clientCpuShare * 100)}% of a core, event loop p99 ${r.clientLoopP99Ms} ms`;
    console.log(
      r.clientSaturated
        ? `client side saturated (${what}): ${seen}; its latencies include the clients' own queueing: read the server side.`
        : `client side starved (${what}): ${seen}, load ${r.load}: the machine was busy; measure again when it is quiet.`,
    );
  }
  mkdirSync(join(HERE, 'results'), { recursive: true });
  writeFileSync(join(HERE, 'results/fanout.json'), JSON.stringify({ results, summary }, null, 2));
  return { results, summary };
}

if (isMain(import.meta.url)) await run();
