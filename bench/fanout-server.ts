/**
 * Benchmark child: a publisher on one side of the fan-out benchmark. `ribosome` runs the real
 * runtime (journal, bus, control server); `bare` is a plain `ws` broadcast loop. Both take the same
 * commands on stdin: `go <rate> <durationMs> <window>` starts publishing (rate 0 = as fast as the
 * clients acknowledge, keeping at most <window> events unacknowledged), `ack <n>` reports the
 * slowest client's count. It prints `port <n>` when ready and `done <json>` at the end.
 */
import { existsSync, statSync } from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { setImmediate as tick } from 'node:timers/promises';
import { WebSocketServer } from 'ws';
import { SqliteJournal } from '../src/execution/journal/sqlite-journal.ts';
import { startInProcess } from '../test/helpers/in-process.ts';

const kind = process.argv[2] === 'bare' ? 'bare' : 'ribosome';
const padding = 'x'.repeat(Number(process.argv[3] ?? 150));
const now = () => performance.timeOrigin + performance.now();

type Publisher = {
  port: number;
  publish(batch: string[]): Promise<void>;
  stop(): Promise<void>;
  /** The journal's WAL file, when there is one. */
  wal?: string;
};

async function ribosome(): Promise<Publisher> {
  // Up to 1 000 clients: far past the default client limit.
  // BENCH_JOURNAL_SYNC=normal: commits without their fsync, to see what the disk's part of the tail is.
  const journalSync = process.env.BENCH_JOURNAL_SYNC === 'normal' ? ('normal' as const) : ('full' as const);
  const rt = await startInProcess({
    journalSync,
    limits: { maxBufferedBytes: 16 * 1024 * 1024, maxClients: 2_000 },
  });
  // Server side of the latency: from the event's making to its frames queued on every socket.
  rt.bus.subscribeBatch((batch) => {
    const at = now();
    for (const { event } of batch) {
      if (event.type === 'info') serverMs.push(at - Number.parseFloat(event.data.message));
    }
  });
  return {
    port: rt.port,
    wal: `${rt.layout.database}-wal`,
    publish: async (batch) => {
      await Promise.all(batch.map((message) => rt.bus.publish('info', { message })));
    },
    stop: () => rt.cleanup(),
  };
}

async function bare(): Promise<Publisher> {
  const wss = new WebSocketServer({ host: '127.0.0.1', port: 0, perMessageDeflate: false });
  await new Promise((r) => wss.once('listening', r));
  let seq = 0;
  return {
    port: (wss.address() as { port: number }).port,
    publish: async (batch) => {
      for (const message of batch) {
        const json = JSON.stringify({
          id: `e${seq++}`,
          timestamp: new Date().toISOString(),
          type: 'info',
          data: { message },
        });
        for (const ws of wss.clients) ws.send(json);
      }
    },
    stop: async () => {
      for (const ws of wss.clients) ws.terminate();
      await new Promise((r) => wss.close(r));
    },
  };
}

// Where a tail could come from: how long each journal commit (with its fsync) held the event loop,
// and how late the event loop ran overall.
const commitMs: number[] = [];
const serverMs: number[] = [];
const append = SqliteJournal.prototype.append;
SqliteJournal.prototype.append = function (this: SqliteJournal, entries) {
  const start = performance.now();
  try {
    return append.call(this, entries);
  } finally {
    commitMs.push(performance.now() - start);
  }
};
const loopDelay = monitorEventLoopDelay({ resolution: 5 });
const sortedP = (values: number[], p: number) =>
  values.sort((a, b) => a - b)[Math.max(0, Math.ceil((p / 100) * values.length) - 1)] ?? 0;

const pub = kind === 'bare' ? await bare() : await ribosome();
let acked = 0;
let maxRss = process.memoryUsage().rss;
let walMax = 0;
const rssTimer = setInterval(() => {
  maxRss = Math.max(maxRss, process.memoryUsage().rss);
  if (pub.wal && existsSync(pub.wal)) walMax = Math.max(walMax, statSync(pub.wal).size);
}, 50);
process.stdout.write(`port ${pub.port}\n`);

const lines = createInterface({ input: process.stdin });
lines.on('line', (line) => {
  const [cmd, ...args] = line.split(' ');
  if (cmd === 'ack') acked = Number(args[0]);
  if (cmd === 'go') void run(Number(args[0]), Number(args[1]), Number(args[2]));
});

async function run(rate: number, durationMs: number, window: number): Promise<void> {
  const startRss = process.memoryUsage().rss;
  const startCpu = process.cpuUsage();
  maxRss = startRss;
  commitMs.length = 0;
  serverMs.length = 0;
  loopDelay.reset();
  loopDelay.enable();
  let published = 0;
  const end = now() + durationMs;
  const message = () => `${now().toFixed(3)} ${padding}`;
  if (rate === 0) {
    while (now() < end) {
      if (published - acked >= window) {
        await new Promise((r) => setTimeout(r, 1));
        continue;
      }
      const batch = Array.from({ length: 50 }, message);
      await pub.publish(batch);
      published += batch.length;
      await tick();
    }
  } else {
    const start = now();
    while (now() < end) {
      const due = Math.floor(((now() - start) / 1000) * rate);
      if (due > published) {
        const batch = Array.from({ length: due - published }, message);
        await pub.publish(batch);
        published += batch.length;
      }
      await new Promise((r) => setTimeout(r, 2));
    }
  }
  clearInterval(rssTimer);
  const cpu = process.cpuUsage(startCpu);
  const cpuMs = (cpu.user + cpu.system) / 1000;
  loopDelay.disable();
  const loop = { loopP99Ms: loopDelay.percentile(99) / 1e6, loopMaxMs: loopDelay.max / 1e6 };
  const server = {
    serverP50Ms: sortedP(serverMs, 50),
    serverP99Ms: sortedP(serverMs, 99),
    serverMaxMs: sortedP(serverMs, 100),
  };
  const wal = pub.wal ? { walMax } : {};
  const commits = {
    commits: commitMs.length,
    commitTotalMs: commitMs.reduce((a, b) => a + b, 0),
    commitP99Ms: sortedP(commitMs, 99),
    commitMaxMs: sortedP(commitMs, 100),
  };
  process.stdout.write(
    `done ${JSON.stringify({ published, startRss, maxRss, cpuMs, ...loop, ...commits, ...server, ...wal })}\n`,
  );
  await pub.stop();
  process.exit(0);
}
