import type { DatabaseSync, StatementSync } from 'node:sqlite';
import type { StorageGuard } from '../../platform/storage/guard.ts';
import { inTransaction } from './database.ts';
import {
  type BatchLimits,
  INDEXED_TYPES,
  type IndexedType,
  type Journal,
  type JournalBatch,
  type JournalEntry,
  type JournalRow,
  takeWithinLimits,
} from './journal.ts';
import { type CheckpointerOptions, type CheckpointStats, WalCheckpointer } from './wal-checkpointer.ts';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS events (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  id TEXT NOT NULL UNIQUE,
  run_id TEXT NOT NULL,
  type TEXT NOT NULL,
  timestamp TEXT NOT NULL,
  json TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS events_run ON events(run_id, seq);
${INDEXED_TYPES.map(
  (type) => `CREATE INDEX IF NOT EXISTS "events_type_${type}" ON events(seq) WHERE type = '${type}';`,
).join('\n')}
`;

type Row = { seq: number; run_id: string; type: string; json: string };
const toRow = (r: Row): JournalRow => ({ seq: r.seq, runId: r.run_id, type: r.type, json: r.json });

export type SqliteJournalOptions = {
  /**
   * Who copies the WAL into the database file. `inline` (the default): SQLite's auto-checkpoint, run
   * inside the commit that takes the WAL past 1 000 pages. `background` (bench/journal.ts compares
   * the two): a WalCheckpointer thread, SQLite's auto-checkpoint off on this connection, so a commit
   * only appends to the WAL and syncs it. Not the default: with it, a server whose execution
   * directory fills up no longer stops as test/host/server/disk-faults.e2e.test.ts expects.
   */
  checkpoints?: 'background' | 'inline';
  checkpointer?: CheckpointerOptions;
  /** A checkpoint that failed (nothing is lost: the WAL keeps it; a full disk fails writes next). */
  onCheckpointError?: (error: Error) => void;
};

/**
 * The journal in SQLite (WAL): one row per event, its JSON stored exactly as it was sent. Appends go
 * through the execution's storage guard, when given: a failed one is the server's storage fault.
 * Checkpoints run on a thread of their own (SqliteJournalOptions.checkpoints), which ends with close().
 */
export class SqliteJournal implements Journal {
  readonly #db: DatabaseSync;
  readonly #guard: StorageGuard | undefined;
  readonly #checkpointer: WalCheckpointer | undefined;
  readonly #insert: StatementSync;
  readonly #after: StatementSync;
  readonly #recent: StatementSync;
  readonly #batch: StatementSync;
  readonly #batchWithin: StatementSync;
  #count: number;
  #lastSeq: number;

  constructor(db: DatabaseSync, guard?: StorageGuard, options: SqliteJournalOptions = {}) {
    this.#db = db;
    this.#guard = guard;
    db.exec(SCHEMA);
    this.#insert = db.prepare(
      'INSERT INTO events (id, run_id, type, timestamp, json) VALUES (?, ?, ?, ?, ?)',
    );
    this.#after = db.prepare('SELECT seq, run_id, type, json FROM events WHERE seq > ? ORDER BY seq LIMIT ?');
    this.#recent = db.prepare(
      'SELECT seq, run_id, type, json FROM events WHERE run_id = ? ORDER BY seq DESC LIMIT ?',
    );
    // A whole batch joined by SQLite into one UTF-8 buffer: no string and no object per event on
    // the JS heap (with a million events, those grew the server's young generation by ~100 MB for
    // good). The inner query is not flattened into the aggregate (it has a LIMIT): its rows come in
    // `seq` order from the primary key and are joined in that order.
    this.#batch = db.prepare(
      `SELECT count(*), coalesce(max(seq), ?), coalesce(group_concat(json, ','), ''), coalesce(sum(octet_length(json)), 0)
       FROM (SELECT seq, json FROM events WHERE seq > ? AND seq <= ? ORDER BY seq LIMIT ?)`,
    );
    // Only when those events are over the bytes: the first event always, then events while their
    // running size stays within the bytes (the window costs twice the plain read).
    this.#batchWithin = db.prepare(
      `SELECT count(*), coalesce(max(seq), ?), coalesce(group_concat(json, ',' ORDER BY seq), ''), coalesce(sum(octet_length(json)), 0)
       FROM (SELECT seq, json, row_number() OVER w AS k, sum(octet_length(json)) OVER w AS upto
             FROM (SELECT seq, json FROM events WHERE seq > ? AND seq <= ? ORDER BY seq LIMIT ?)
             WINDOW w AS (ORDER BY seq ROWS UNBOUNDED PRECEDING))
       WHERE k = 1 OR upto <= ?`,
    );
    this.#batchWithin.setReturnArrays(true);
    this.#batch.setReturnArrays(true);
    const stats = db.prepare('SELECT count(*) AS n, coalesce(max(seq), 0) AS last FROM events').get() as {
      n: number;
      last: number;
    };
    this.#count = stats.n;
    this.#lastSeq = stats.last;
    const file = (db.prepare('PRAGMA database_list').all() as Array<{ name: string; file: string }>).find(
      (d) => d.name === 'main',
    )?.file;
    if ((options.checkpoints ?? 'inline') === 'background' && file) {
      this.#checkpointer = this.#startCheckpointer(file, options);
    }
  }

  /** The checkpointer, SQLite's auto-checkpoint off while it runs; undefined when it cannot start. */
  #startCheckpointer(file: string, options: SqliteJournalOptions): WalCheckpointer | undefined {
    const db = this.#db;
    const { synchronous } = db.prepare('PRAGMA synchronous').get() as { synchronous: number };
    try {
      const checkpointer = new WalCheckpointer(file, synchronous, options.checkpointer, {
        ...(options.onCheckpointError ? { onError: options.onCheckpointError } : {}),
        // Without it the WAL would only grow: the writer checkpoints again, as SQLite does by default.
        onGone: () => {
          if (db.isOpen) db.exec('PRAGMA wal_autocheckpoint = 1000');
        },
      });
      db.exec('PRAGMA wal_autocheckpoint = 0');
      return checkpointer;
    } catch (error) {
      options.onCheckpointError?.(error as Error);
      return undefined;
    }
  }

  append(entries: readonly JournalEntry[]): number[] {
    if (entries.length === 0) return [];
    const insert = () =>
      inTransaction(this.#db, () =>
        entries.map((e) =>
          Number(this.#insert.run(e.id, e.runId, e.type, e.timestamp, e.json).lastInsertRowid),
        ),
      );
    const seqs = this.#guard ? this.#guard.write('journal append', insert) : insert();
    this.#checkpointer?.noteCommit();
    this.#count += entries.length;
    this.#lastSeq = seqs.at(-1) ?? this.#lastSeq;
    return seqs;
  }

  count(): number {
    return this.#count;
  }

  /** What the checkpointer did so far (undefined with inline checkpoints). */
  checkpointStats(): CheckpointStats | undefined {
    return this.#checkpointer?.stats;
  }

  lastSeq(): number {
    return this.#lastSeq;
  }

  readAfter(afterSeq: number, limits: BatchLimits): JournalRow[] {
    const rows = this.#after.iterate(afterSeq, limits.maxEvents) as Iterable<Row>;
    return takeWithinLimits(mapRows(rows), limits);
  }

  readBatch(afterSeq: number, throughSeq: number, limits: BatchLimits): JournalBatch {
    type Joined = [count: number, lastSeq: number, json: string, bytes: number];
    let [count, lastSeq, json, bytes] = this.#batch.get(
      afterSeq,
      afterSeq,
      throughSeq,
      limits.maxEvents,
    ) as unknown as Joined;
    // The events' own bytes, without the commas between them.
    if (count > 1 && bytes > limits.maxBytes) {
      [count, lastSeq, json, bytes] = this.#batchWithin.get(
        afterSeq,
        afterSeq,
        throughSeq,
        limits.maxEvents,
        limits.maxBytes,
      ) as unknown as Joined;
    }
    return { count, lastSeq, json, bytes: bytes + Math.max(0, count - 1) };
  }

  recentOfRun(runId: string, limits: BatchLimits): JournalRow[] {
    const newestFirst = takeWithinLimits(
      mapRows(this.#recent.iterate(runId, limits.maxEvents) as Iterable<Row>),
      limits,
    );
    return newestFirst.reverse();
  }

  lastOfRun(runId: string, types: readonly string[]): JournalRow | undefined {
    if (types.length === 0) return undefined;
    // Newest first along the (run_id, seq) index; the event sought is near the end of its run.
    const row = this.#db
      .prepare(
        `SELECT seq, run_id, type, json FROM events WHERE run_id = ? AND type IN (${types.map(() => '?').join(', ')}) ORDER BY seq DESC LIMIT 1`,
      )
      .get(runId, ...types) as Row | undefined;
    return row ? toRow(row) : undefined;
  }

  lastOf(types: readonly string[], beforeSeq = Number.MAX_SAFE_INTEGER): JournalRow | undefined {
    if (types.length === 0) return undefined;
    // Newest first along the primary key: the event sought is near the journal's end.
    const row = this.#db
      .prepare(
        `SELECT seq, run_id, type, json FROM events WHERE seq < ? AND type IN (${types.map(() => '?').join(', ')}) ORDER BY seq DESC LIMIT 1`,
      )
      .get(beforeSeq, ...types) as Row | undefined;
    return row ? toRow(row) : undefined;
  }

  ofIndexedType(type: IndexedType): JournalRow[] {
    if (!INDEXED_TYPES.includes(type)) return [];
    // The type as a literal, so SQLite takes its partial index (a bound parameter would not).
    const rows = this.#db
      .prepare(`SELECT seq, run_id, type, json FROM events WHERE type = '${type}' ORDER BY seq`)
      .all() as Row[];
    return rows.map(toRow);
  }

  /**
   * Ends the checkpointer, then closes the database; never throws (a close after a storage fault
   * may fail, the WAL is kept).
   */
  close(): void {
    this.#checkpointer?.stop();
    try {
      if (this.#db.isOpen) this.#db.close();
    } catch {
      // SQLite keeps the WAL: what it holds is replayed at the next open.
    }
  }
}

function* mapRows(rows: Iterable<Row>): Generator<JournalRow> {
  for (const r of rows) yield toRow(r);
}
