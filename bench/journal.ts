/**
 * Journal benchmark (issue: protocol server): durable append rate through the event bus (group
 * commit, fsync per commit) beside one commit per event, and history.sync over a 1 000 000-event
 * journal, read by a real client over loopback.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WebSocket } from 'ws';
import { openDatabase } from '../src/journal/database.ts';
import { EventBus } from '../src/journal/event-bus.ts';
import { SqliteJournal } from '../src/journal/sqlite-journal.ts';
import { startInProcess } from '../test/helpers/in-process.ts';
import { isMain, mb, round } from './stats.ts';

const message = 'x'.repeat(150);

async function appendRate(dir: string, mode: 'group' | 'single', count: number): Promise<number> {
  const journal = new SqliteJournal(openDatabase(join(dir, `${mode}.db`), 'full'));
  const bus = new EventBus({ journal, runId: 'bench' });
  const start = performance.now();
  if (mode === 'group') {
    // As the engine publishes: bursts within one turn of the event loop share a commit.
    for (let i = 0; i < count; i += 100) {
      await Promise.all(Array.from({ length: 100 }, () => bus.publish('info', { message })));
    }
  } else {
    for (let i = 0; i < count; i++) await bus.publish('info', { message });
  }
  const rate = count / ((performance.now() - start) / 1000);
  journal.close();
  return round(rate, 0);
}

async function historyRate(dir: string, events: number) {
  const execDir = join(dir, 'history');
  const rt0 = await startInProcess({}, execDir);
  await rt0.stop('seed');
  // Seed the journal directly in large transactions (the server is stopped meanwhile).
  const journal = new SqliteJournal(openDatabase(join(execDir, '.ribosome/ribosome.db'), 'normal'));
  const at = new Date().toISOString();
  for (let i = 0; i < events; i += 10_000) {
    journal.append(
      Array.from({ length: 10_000 }, (_, k) => {
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
  journal.close();
  const dbBytes = statSync(join(execDir, '.ribosome/ribosome.db')).size;
  const rt = await startInProcess({}, execDir);
  const ws = new WebSocket(rt.url, { perMessageDeflate: false, maxPayload: 64 * 1024 * 1024 });
  await new Promise((r) => ws.once('open', r));
  ws.send(JSON.stringify({ type: 'handshake', data: { mode: 'readonly' } }));
  let received = 0;
  let batches = 0;
  let maxRss = process.memoryUsage().rss;
  const start = performance.now();
  await new Promise<void>((resolve) => {
    ws.on('message', (data: Buffer) => {
      const event = JSON.parse(data.toString()) as {
        type: string;
        data: { events: unknown[]; hasMore: boolean };
      };
      if (event.type === 'server.ready') ws.send(JSON.stringify({ id: 'h', type: 'history.sync' }));
      if (event.type !== 'history.batch') return;
      received += event.data.events.length;
      batches++;
      if (batches % 100 === 0) maxRss = Math.max(maxRss, process.memoryUsage().rss);
      if (!event.data.hasMore) resolve();
    });
  });
  const seconds = (performance.now() - start) / 1000;
  ws.close();
  await rt.cleanup();
  return {
    events: received,
    batches,
    seconds: round(seconds),
    eventsPerSec: round(received / seconds, 0),
    journalMb: mb(dbBytes),
    maxRssMb: mb(maxRss),
  };
}

export async function run(options: { historyEvents?: number } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'ribosome-bench-journal-'));
  try {
    const append = {
      groupCommitEventsPerSec: await appendRate(dir, 'group', 100_000),
      commitPerEventEventsPerSec: await appendRate(dir, 'single', 5_000),
    };
    const history = await historyRate(dir, options.historyEvents ?? 1_000_000);
    const result = { append, history };
    console.log(JSON.stringify(result, null, 2));
    return result;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (isMain(import.meta.url))
  await run({ historyEvents: Number(process.env.BENCH_HISTORY_EVENTS ?? 1_000_000) });
