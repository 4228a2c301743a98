/**
 * Journal benchmark (issue: protocol server): durable append rate through the event bus (group
 * commit, fsync per commit) beside one commit per event. history.sync over a 1 000 000-event
 * journal is bench/history.ts.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from '../src/journal/database.ts';
import { EventBus } from '../src/journal/event-bus.ts';
import { SqliteJournal } from '../src/journal/sqlite-journal.ts';
import { isMain, round } from './stats.ts';

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

export async function run() {
  const dir = mkdtempSync(join(tmpdir(), 'ribosome-bench-journal-'));
  try {
    const append = {
      groupCommitEventsPerSec: await appendRate(dir, 'group', 100_000),
      commitPerEventEventsPerSec: await appendRate(dir, 'single', 5_000),
    };
    const result = { append };
    console.log(JSON.stringify(result, null, 2));
    return result;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (isMain(import.meta.url)) await run();
