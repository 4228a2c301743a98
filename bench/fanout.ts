/**
 * Fan-out benchmark (issue: protocol server). Publishes `info` events through the real runtime
 * (journal + bus + WebSocket fan-out) and through a bare `ws` broadcast loop, to the same clients,
 * in the same run: delivered events/s, publish-to-receive latency, server RSS.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
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
  p50Ms: number;
  p99Ms: number;
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

async function connectClients(
  kind: Kind,
  port: number,
  count: number,
  onEvent: (i: number, data?: Buffer) => void,
) {
  const clients: LeanClient[] = [];
  for (let start = 0; start < count; start += 100) {
    const chunk = await Promise.all(
      Array.from({ length: Math.min(100, count - start) }, (_, k) => {
        const i = start + k;
        return leanClient(port, {
          ...(kind !== 'bare'
            ? { hello: '{"type":"handshake","data":{"mode":"readonly"}}', skipFrames: 2 }
            : {}),
          // Every tenth client reads its events (for latency); the others only count frames.
          wantPayload: i % 10 === 0,
          onFrame: (payload) => onEvent(i, payload),
        });
      }),
    );
    clients.push(...chunk);
  }
  return clients;
}

export async function runScenario(s: Scenario): Promise<FanoutResult> {
  const { child, port, lines } = await startPublisher(s.kind);
  const received = new Uint32Array(s.clients);
  const latencies: number[] = [];
  let total = 0;
  const sockets = await connectClients(s.kind, port, s.clients, (i, data) => {
    received[i] = (received[i] ?? 0) + 1;
    total++;
    if (!data) return;
    const event = JSON.parse(data.toString()) as { type: string; data: { message: string } };
    if (event.type === 'info') latencies.push(now() - Number.parseFloat(event.data.message));
  });
  let stalled: LeanClient | undefined;
  if (s.stalled) {
    [stalled] = await connectClients(s.kind, port, 1, () => {});
    stalled?.socket.pause();
  }
  const acker = setInterval(() => {
    let min = Number.POSITIVE_INFINITY;
    for (const n of received) min = Math.min(min, n);
    child.stdin!.write(`ack ${min}\n`);
  }, 10);
  const started = now();
  const floor = startFsyncFloor();
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
    serverP99Ms: number;
    commits: number;
    commitTotalMs: number;
    walMax?: number;
  };
  const fsyncFloor = await floor.stop();
  // Let in-flight events land, bounded.
  const deadline = now() + 5_000;
  while (now() < deadline && received.some((n) => n < stats.published))
    await new Promise((r) => setTimeout(r, 20));
  const elapsed = (now() - started) / 1000;
  for (const c of sockets) c.close();
  stalled?.close();
  // The publisher stops by itself after `done` (a profile it writes at exit is kept); if not, killed.
  await new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    child.once('exit', () => resolve(clearTimeout(timer)));
  });
  const sorted = Float64Array.from(latencies).sort();
  return {
    ...s,
    published: stats.published,
    deliveredPerSec: round(total / elapsed, 0),
    eventsPerSec: round(stats.published / elapsed, 0),
    p50Ms: round(percentile(sorted, 50)),
    p99Ms: round(percentile(sorted, 99)),
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
  const summary = {
    throughputRatio100: ratio(100),
    throughputRatio1000: ratio(1000),
    tailP99Ms: tail('ribosome'),
    tailRunsUnder50Ms: `${tail('ribosome').filter((p) => p < 50).length}/3`,
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
  mkdirSync(join(HERE, 'results'), { recursive: true });
  writeFileSync(join(HERE, 'results/fanout.json'), JSON.stringify({ results, summary }, null, 2));
  return { results, summary };
}

if (isMain(import.meta.url)) await run();
