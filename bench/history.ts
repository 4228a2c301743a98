/**
 * History benchmark (issue 16): `history.sync` of a 1 000 000-event journal to a lean client over
 * loopback. The server runs in a child process (bench/history-server.ts), the client here; beside
 * the real server, in the same run and on the same journal, a bare `ws` loop that reads the same
 * rows and sends the same frames with nothing else (the floor). Per repetition: events/s, the
 * server's peak RSS and CPU. Medians over BENCH_HISTORY_REPS runs (default 3); BENCH_HISTORY_EVENTS
 * scales the journal down for a quick run. Writes bench/results/history.json.
 * BENCH_HISTORY_VARIANT=live runs the other variant instead (bench/history-live.ts): two typed clients
 * syncing at once while 5 000 live events/s flow, against the same syncs with no live events.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { openDatabase } from '../src/execution/journal/database.ts';
import { SqliteJournal } from '../src/execution/journal/sqlite-journal.ts';
import { startInProcess } from '../test/helpers/in-process.ts';
import { runLive } from './history-live.ts';
import { leanClient } from './lean-ws-client.ts';
import { isMain, mb, median, round } from './stats.ts';

type Kind = 'ribosome' | 'bare';
const HERE = import.meta.dirname;
const message = 'x'.repeat(150);
const EVENT_START = Buffer.from('{"id":"');

/** An execution directory whose journal holds `events` info events (plus the runtime's own few). */
async function seed(dir: string, events: number): Promise<number> {
  const rt = await startInProcess({}, dir);
  await rt.stop('seed');
  const journal = new SqliteJournal(openDatabase(join(dir, '.ribosome/ribosome.db'), 'normal'));
  const at = new Date().toISOString();
  for (let i = 0; i < events; i += 10_000) {
    journal.append(
      Array.from({ length: Math.min(10_000, events - i) }, (_, k) => {
        const id = `seed-${i + k}`;
        return {
          id,
          runId: 'seeded',
          type: 'info',
          timestamp: at,
          json: JSON.stringify({ id, timestamp: at, type: 'info', data: { message } }),
        };
      }),
    );
  }
  const total = journal.count();
  journal.close();
  return total;
}

function startServer(kind: Kind, dir: string) {
  // BENCH_SERVER_NODE_ARGS (e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof") profiles the server child.
  const nodeArgs = process.env.BENCH_SERVER_NODE_ARGS?.split(' ').filter(Boolean) ?? [];
  const child = spawn(process.execPath, [...nodeArgs, join(HERE, 'history-server.ts'), kind, dir], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
  const next = async (prefix: string) => {
    const { value } = await lines.next();
    const line = String(value);
    if (!line.startsWith(`${prefix} `)) throw new Error(`history server: expected ${prefix}, got ${line}`);
    return line.slice(prefix.length + 1);
  };
  return { child, next };
}

/** Counts the events of one history.batch frame without parsing it (each event opens with `{"id":"`). */
function countEvents(payload: Buffer): number {
  let n = -1; // the envelope's own id
  for (let at = payload.indexOf(EVENT_START); at >= 0; at = payload.indexOf(EVENT_START, at + 7)) n++;
  return n;
}

async function syncOnce(kind: Kind, dir: string, seeded: number) {
  let expected = seeded;
  const { child, next } = startServer(kind, dir);
  try {
    const port = Number(await next('port'));
    let events = 0;
    let batches = 0;
    let lastSeen = -1;
    const start = performance.now();
    const clientCpu = process.cpuUsage();
    const finished = new Promise<void>((resolve, reject) => {
      void leanClient(port, {
        hello: ['{"type":"handshake","data":{"mode":"readonly"}}', '{"id":"bench","type":"history.sync"}'],
        wantPayload: true,
        onFrame: (payload) => {
          if (!payload) return;
          if (payload.subarray(0, 120).includes('"type":"handshake.response"')) {
            // The real server journals a few events of its own at start: it says how many it holds.
            expected = (JSON.parse(payload.toString()) as { data: { totalEvents: number } }).data.totalEvents;
          }
          if (!payload.subarray(0, 120).includes('"type":"history.batch"')) return;
          batches++;
          const count = countEvents(payload);
          events += count;
          // Every 25th batch is parsed whole: the count and the order of the seeded ids must hold.
          if (batches % 25 === 1) {
            const batch = JSON.parse(payload.toString()) as { data: { events: Array<{ id: string }> } };
            if (batch.data.events.length !== count) reject(new Error('event count mismatch'));
            for (const e of batch.data.events) {
              const n = e.id.startsWith('seed-') ? Number(e.id.slice(5)) : -1;
              if (n >= 0 && n <= lastSeen) reject(new Error(`out of order: ${e.id}`));
              if (n >= 0) lastSeen = n;
            }
          }
          if (payload.subarray(-20).includes('"hasMore":false')) resolve();
        },
      }).catch(reject);
    });
    await finished;
    const seconds = (performance.now() - start) / 1000;
    const cpu = process.cpuUsage(clientCpu);
    child.stdin!.write('stats\n');
    const stats = JSON.parse(await next('stats')) as { maxRss: number; cpuMs: number };
    if (events !== expected) throw new Error(`${kind}: got ${events} events, expected ${expected}`);
    return {
      kind,
      events,
      batches,
      seconds: round(seconds),
      eventsPerSec: round(events / seconds, 0),
      serverMaxRssMb: mb(stats.maxRss),
      serverCpuMs: round(stats.cpuMs, 0),
      clientCpuMs: round((cpu.user + cpu.system) / 1000, 0),
    };
  } finally {
    child.stdin!.write('stop\n');
    await new Promise((r) => {
      const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
      child.once('exit', () => r(clearTimeout(timer)));
    });
  }
}

export async function run(
  options: { events?: number; reps?: number } = {
    events: Number(process.env.BENCH_HISTORY_EVENTS ?? 1_000_000),
    reps: Number(process.env.BENCH_HISTORY_REPS ?? 3),
  },
) {
  if (process.env.BENCH_HISTORY_VARIANT === 'live') return runLive();
  const dir = mkdtempSync(join(tmpdir(), 'ribosome-bench-history-'));
  try {
    const expected = await seed(dir, options.events ?? 1_000_000);
    const journalMb = mb(statSync(join(dir, '.ribosome/ribosome.db')).size);
    const runs: Array<Awaited<ReturnType<typeof syncOnce>>> = [];
    for (let i = 0; i < (options.reps ?? 3); i++) {
      for (const kind of ['bare', 'ribosome'] as const) runs.push(await syncOnce(kind, dir, expected));
    }
    console.table(runs);
    const of = (kind: Kind, key: 'eventsPerSec' | 'serverMaxRssMb') =>
      median(runs.filter((r) => r.kind === kind).map((r) => r[key]));
    const summary = {
      events: expected,
      journalMb,
      ribosomeEventsPerSec: of('ribosome', 'eventsPerSec'),
      bareEventsPerSec: of('bare', 'eventsPerSec'),
      ratioToBare: round(of('ribosome', 'eventsPerSec') / of('bare', 'eventsPerSec')),
      ribosomeServerMaxRssMb: of('ribosome', 'serverMaxRssMb'),
      bareServerMaxRssMb: of('bare', 'serverMaxRssMb'),
    };
    console.log(summary);
    mkdirSync(join(HERE, 'results'), { recursive: true });
    writeFileSync(join(HERE, 'results/history.json'), JSON.stringify({ runs, summary }, null, 2));
    return { runs, summary };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (isMain(import.meta.url)) await run();
