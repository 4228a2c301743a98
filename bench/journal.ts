/**
 * Journal benchmark (issue: protocol server; issue 16): durable append rate through the event bus
 * (group commit, fsync per commit) beside one commit per event; and the commit path under a steady
 * stream: 5 000 events/s as 10-event commits every 2 ms into a journal that already holds
 * BENCH_JOURNAL_PREFILL events (default 200 000, random UUID ids as older journals have), for each
 * way of checkpointing (SQLite's auto-checkpoint inside a commit, or a worker thread) and each kind
 * of new event id (random UUID v4, time-ordered v7), in rotation, BENCH_JOURNAL_REPS times (default
 * 3): commit time p50/p99/max, event-loop delay p99, WAL pages written per commit, the WAL's largest
 * size, and the disk's own sync p99 meanwhile (bench/fsync-floor.ts). `BENCH_JOURNAL=commit` runs that part alone. history.sync over a 1 000 000-event journal is
 * bench/history.ts. Writes bench/results/journal.json.
 */
import { randomUUID } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { openDatabase } from '../src/execution/journal/database.ts';
import { EventBus } from '../src/execution/journal/event-bus.ts';
import { newEventId } from '../src/execution/journal/event-id.ts';
import type { JournalEntry } from '../src/execution/journal/journal.ts';
import { SqliteJournal } from '../src/execution/journal/sqlite-journal.ts';
import { startFsyncFloor } from './fsync-floor.ts';
import { isMain, mb, median, percentile, round } from './stats.ts';

const HERE = import.meta.dirname;
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

type Checkpoints = 'inline' | 'background';
type Ids = 'v4' | 'v7';
const ID: Record<Ids, () => string> = { v4: randomUUID, v7: () => newEventId() };

function entry(id: string): JournalEntry {
  const timestamp = new Date().toISOString();
  return {
    id,
    runId: 'bench',
    type: 'info',
    timestamp,
    json: JSON.stringify({ id, timestamp, type: 'info', data: { message } }),
  };
}

/** A journal of `events` events with random UUID ids (as every journal before v7 ids), checkpointed. */
function prefill(file: string, events: number): void {
  const journal = new SqliteJournal(openDatabase(file, 'normal'), undefined, { checkpoints: 'inline' });
  for (let i = 0; i < events; i += 10_000) {
    journal.append(Array.from({ length: Math.min(10_000, events - i) }, () => entry(randomUUID())));
  }
  journal.close(); // the last connection: checkpoints and removes the WAL
}

const walSize = (file: string) => (existsSync(`${file}-wal`) ? statSync(`${file}-wal`).size : 0);

/** WAL pages a 10-event commit writes, with nothing checkpointed meanwhile (500 commits). */
function walPagesPerCommit(file: string, ids: Ids): number {
  const db = openDatabase(file, 'normal');
  const journal = new SqliteJournal(db, undefined, { checkpoints: 'inline' });
  db.exec('PRAGMA wal_autocheckpoint = 0; PRAGMA wal_checkpoint(TRUNCATE)');
  for (let c = 0; c < 500; c++) journal.append(Array.from({ length: 10 }, () => entry(ID[ids]())));
  const pages = (walSize(file) - 32) / (4096 + 24) / 500;
  journal.close();
  return round(pages, 1);
}

export type CommitResult = {
  checkpoints: Checkpoints;
  ids: Ids;
  commits: number;
  commitP50Ms: number;
  commitP99Ms: number;
  commitMaxMs: number;
  loopP99Ms: number;
  /** The disk's own fdatasync p99 meanwhile (bench/fsync-floor.ts). */
  fsyncFloorP99Ms: number;
  walMaxMb: number;
  /** Checkpoints of the worker: passive, caught up (the WAL reset), restarts, truncates. */
  checkpointer: string;
};

/** 5 000 events/s for `durationMs` as 10-event commits on a 2 ms timer, as the bus makes them. */
async function steadyStream(
  file: string,
  checkpoints: Checkpoints,
  ids: Ids,
  durationMs: number,
): Promise<CommitResult> {
  const journal = new SqliteJournal(openDatabase(file, 'full'), undefined, { checkpoints });
  const times: number[] = [];
  let walMax = 0;
  const loop = monitorEventLoopDelay({ resolution: 1 });
  loop.enable();
  const floor = startFsyncFloor();
  const start = performance.now();
  let made = 0;
  while (performance.now() - start < durationMs) {
    const due = Math.floor(((performance.now() - start) / 1000) * 5000);
    // Everything due in one commit, as the bus's group commit does (more per commit when behind).
    if (due > made) {
      const batch = Array.from({ length: due - made }, () => entry(ID[ids]()));
      const t = performance.now();
      journal.append(batch);
      times.push(performance.now() - t);
      made += batch.length;
    }
    walMax = Math.max(walMax, walSize(file));
    await new Promise((r) => setTimeout(r, 2));
  }
  loop.disable();
  const fsyncFloor = await floor.stop();
  const stats = journal.checkpointStats();
  journal.close();
  const sorted = Float64Array.from(times).sort();
  return {
    checkpoints,
    ids,
    commits: times.length,
    commitP50Ms: round(percentile(sorted, 50)),
    commitP99Ms: round(percentile(sorted, 99)),
    commitMaxMs: round(percentile(sorted, 100)),
    loopP99Ms: round(loop.percentile(99) / 1e6),
    fsyncFloorP99Ms: fsyncFloor.p99Ms,
    walMaxMb: mb(walMax),
    checkpointer: stats
      ? `${stats.passive}/${stats.caughtUp}/${stats.restarts}/${stats.truncates} max ${stats.maxWalFrames}`
      : '-',
  };
}

async function commitPath(dir: string) {
  const events = Number(process.env.BENCH_JOURNAL_PREFILL ?? 200_000);
  const reps = Number(process.env.BENCH_JOURNAL_REPS ?? 3);
  const durationMs = Number(process.env.BENCH_DURATION_MS ?? 5_000);
  const base = join(dir, 'prefilled.db');
  prefill(base, events);
  const fresh = (name: string) => {
    const file = join(dir, `${name}.db`);
    rmSync(file, { force: true });
    copyFileSync(base, file);
    return file;
  };
  const pages = {
    v4: walPagesPerCommit(fresh('pages-v4'), 'v4'),
    v7: walPagesPerCommit(fresh('pages-v7'), 'v7'),
  };
  const variants: Array<[Checkpoints, Ids]> = [
    ['inline', 'v4'],
    ['background', 'v4'],
    ['inline', 'v7'],
    ['background', 'v7'],
  ];
  const runs: CommitResult[] = [];
  for (let rep = 0; rep < reps; rep++) {
    for (const [checkpoints, ids] of variants) {
      runs.push(await steadyStream(fresh(`${checkpoints}-${ids}`), checkpoints, ids, durationMs));
    }
  }
  const rows = variants.map(([checkpoints, ids]) => {
    const mine = runs.filter((r) => r.checkpoints === checkpoints && r.ids === ids);
    const med = (key: keyof CommitResult) => median(mine.map((r) => r[key] as number));
    return {
      checkpoints,
      ids,
      walPagesPerCommit: pages[ids],
      commitP50Ms: med('commitP50Ms'),
      commitP99Ms: med('commitP99Ms'),
      commitP99MsRuns: mine.map((r) => r.commitP99Ms).join(' '),
      commitMaxMs: med('commitMaxMs'),
      loopP99Ms: med('loopP99Ms'),
      fsyncFloorP99Ms: med('fsyncFloorP99Ms'),
      walMaxMb: med('walMaxMb'),
      checkpointer: mine.map((r) => r.checkpointer).join(' '),
    };
  });
  console.table(rows);
  const before = rows[0]!;
  const after = rows[3]!;
  const summary = {
    prefilledEvents: events,
    commitP99Before: before.commitP99Ms,
    commitP99After: after.commitP99Ms,
    commitP99Ratio: round(after.commitP99Ms / before.commitP99Ms),
    walPagesPerCommitRatio: round(pages.v7 / pages.v4),
  };
  console.log(summary);
  return { rows, runs, summary };
}

export async function run() {
  const dir = mkdtempSync(join(tmpdir(), 'ribosome-bench-journal-'));
  try {
    const append =
      process.env.BENCH_JOURNAL === 'commit'
        ? undefined
        : {
            groupCommitEventsPerSec: await appendRate(dir, 'group', 100_000),
            commitPerEventEventsPerSec: await appendRate(dir, 'single', 5_000),
          };
    if (append) console.log(append);
    const commit = await commitPath(dir);
    const result = { append, commit };
    mkdirSync(join(HERE, 'results'), { recursive: true });
    writeFileSync(join(HERE, 'results/journal.json'), JSON.stringify(result, null, 2));
    return result;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (isMain(import.meta.url)) await run();
