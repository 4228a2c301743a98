import { existsSync } from 'node:fs';
import { DatabaseSync } from 'node:sqlite';
import { APPROVAL_TURNS, type ApprovalWait, approvalEvents } from '../../core/protocol/approval.ts';
import { USAGE_WAIT_TURNS, UsageLimitWait } from '../../core/protocol/usage-limit-events.ts';
import { executionLayout } from '../../execution/layout/layout.ts';
import { isHolderAlive, readLock } from '../../execution/layout/runtime-lock.ts';
import { type EngineState, initialState, reduceAll } from '../../execution/state/reducer.ts';
import { parseTransition } from '../../execution/state/transitions.ts';

/** An execution directory that cannot be read: exit 2 (a path the user gave that holds no execution). */
export class ExecutionReadError extends Error {
  readonly code = 2;
}

/**
 * Opens an execution's database read-only: never writes, takes no lock, so it works while a server
 * runs (WAL readers do not block the writer) and after a crash (what was committed is there).
 */
export function openExecutionDb(executionDir: string): DatabaseSync {
  const file = executionLayout(executionDir).database;
  if (!existsSync(file)) {
    throw new ExecutionReadError(
      `${executionDir} is not an execution directory (no .ribosome/ribosome.db); give --execution DIR`,
    );
  }
  return new DatabaseSync(file, { readOnly: true, timeout: 5_000 });
}

const tableExists = (db: DatabaseSync, name: string) =>
  db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(name) !== undefined;

/** The recorded state (every transition folded, as a server replays it at start). */
export function readState(db: DatabaseSync): EngineState {
  return readStateAfter(db, { state: initialState(), seq: 0 }).state;
}

/**
 * `from.state` with the transitions recorded after sequence number `from.seq` folded in, and the
 * last one's number: a reader that polls a running execution folds only what is new (the
 * transitions are only ever appended).
 */
export function readStateAfter(
  db: DatabaseSync,
  from: { state: EngineState; seq: number },
): { state: EngineState; seq: number } {
  if (!tableExists(db, 'transitions')) return from;
  const rows = db
    .prepare('SELECT seq, type, data FROM transitions WHERE seq > ? ORDER BY seq')
    .all(from.seq) as Array<{ seq: number; type: string; data: string }>;
  const state = reduceAll(
    rows.map((r) => parseTransition(r.type, JSON.parse(r.data))),
    from.state,
  );
  return { state, seq: rows.at(-1)?.seq ?? from.seq };
}

/** The time of each run's newest journaled event. */
export function lastEventTimes(db: DatabaseSync): Map<string, string> {
  if (!tableExists(db, 'events')) return new Map();
  const rows = db
    .prepare('SELECT run_id, max(timestamp) AS last FROM events GROUP BY run_id')
    .all() as Array<{ run_id: string; last: string }>;
  return new Map(rows.map((r) => [r.run_id, r.last]));
}

/** The run ids of the journal, in the order their first event was journaled. */
export function journalRunIds(db: DatabaseSync): string[] {
  if (!tableExists(db, 'events')) return [];
  const rows = db
    .prepare('SELECT run_id, min(seq) AS first FROM events GROUP BY run_id ORDER BY first')
    .all() as Array<{ run_id: string }>;
  return rows.map((r) => r.run_id);
}

/** The journaled events (their JSON exactly as sent), in sequence order; of one run when given. */
export function* journalEvents(db: DatabaseSync, runId?: string): Generator<string> {
  if (!tableExists(db, 'events')) return;
  const rows =
    runId === undefined
      ? db.prepare('SELECT json FROM events ORDER BY seq').iterate()
      : db.prepare('SELECT json FROM events WHERE run_id = ? ORDER BY seq').iterate(runId);
  for (const row of rows as Iterable<{ json: string }>) yield row.json;
}

/** The id of the journal's first event: which journal a reader read before, should its file be made anew. */
export function firstEventId(db: DatabaseSync): string | undefined {
  if (!tableExists(db, 'events')) return undefined;
  const row = db.prepare('SELECT id FROM events ORDER BY seq LIMIT 1').get() as { id: string } | undefined;
  return row?.id;
}

/**
 * The journaled events after sequence number `afterSeq` (0: all), each with its own, in order: a
 * reader that polls a running execution reads only what is new since its last read. `exceptTypes`:
 * types it has no use for, left in the database unread (a file tree, a gate's streamed output).
 */
export function* journalEventsAfter(
  db: DatabaseSync,
  afterSeq: number,
  exceptTypes: readonly string[] = [],
): Generator<{ seq: number; json: string }> {
  if (!tableExists(db, 'events')) return;
  const except = exceptTypes.length > 0 ? ` AND type NOT IN (${exceptTypes.map(() => '?').join(', ')})` : '';
  const rows = db
    .prepare(`SELECT seq, json FROM events WHERE seq > ?${except} ORDER BY seq`)
    .iterate(afterSeq, ...exceptTypes);
  for (const row of rows as Iterable<{ seq: number; json: string }>) yield row;
}

/**
 * The newest `limit` journaled events (of `types` when given), oldest first, their JSON exactly as
 * sent: what a reader of a run's latest news needs, without reading the whole journal.
 */
export function latestEvents(db: DatabaseSync, limit: number, types: readonly string[] = []): string[] {
  if (!tableExists(db, 'events')) return [];
  const only = types.length > 0 ? ` WHERE type IN (${types.map(() => '?').join(', ')})` : '';
  const rows = db
    .prepare(`SELECT json FROM events${only} ORDER BY seq DESC LIMIT ?`)
    .all(...types, limit) as Array<{ json: string }>;
  return rows.map((r) => r.json).reverse();
}

/**
 * The usage-limit wait the run is in, when its newest event of USAGE_WAIT_TURNS is a usageLimit.waiting
 * (no end and no codon start since). Read from the end of the run's events (the run index), so a
 * long run costs no more than its events since the last codon started.
 */
export function usageWaitOf(db: DatabaseSync, runId: string): UsageLimitWait | undefined {
  if (!tableExists(db, 'events')) return undefined;
  const row = db
    .prepare(
      `SELECT type, json FROM events WHERE run_id = ? AND type IN (${USAGE_WAIT_TURNS.map(() => '?').join(', ')}) ORDER BY seq DESC LIMIT 1`,
    )
    .get(runId, ...USAGE_WAIT_TURNS) as { type: string; json: string } | undefined;
  if (row?.type !== 'usageLimit.waiting') return undefined;
  const parsed = UsageLimitWait.safeParse((JSON.parse(row.json) as { data?: unknown }).data);
  return parsed.success ? parsed.data : undefined;
}

/**
 * The approval wait of the execution (docs/review.md#approval-gates), when its newest event of
 * APPROVAL_TURNS is an approval.waiting: no end and no codon start since, whichever run journaled it
 * (a server stopped during the wait leaves it for the next one, which waits again).
 */
export function approvalWaitOf(db: DatabaseSync): ApprovalWait | undefined {
  if (!tableExists(db, 'events')) return undefined;
  const row = db
    .prepare(
      `SELECT type, json FROM events WHERE type IN (${APPROVAL_TURNS.map(() => '?').join(', ')}) ORDER BY seq DESC LIMIT 1`,
    )
    .get(...APPROVAL_TURNS) as { type: string; json: string } | undefined;
  if (row?.type !== 'approval.waiting') return undefined;
  const parsed = approvalEvents['approval.waiting'].safeParse(
    (JSON.parse(row.json) as { data?: unknown }).data,
  );
  if (!parsed.success) return undefined;
  const { message: _message, ...wait } = parsed.data;
  return wait;
}

/**
 * The WebSocket URL of the live server holding the execution (from its runtime lock: pid, host,
 * port, heartbeat), or undefined when none does. A server bound to every address is reached on loopback.
 */
export function liveServerUrl(executionDir: string): string | undefined {
  const lock = readLock(executionLayout(executionDir).lockFile);
  if (!lock || lock.port === null || !isHolderAlive(lock)) return undefined;
  const host =
    lock.host === null || lock.host === '0.0.0.0' ? '127.0.0.1' : lock.host === '::' ? '::1' : lock.host;
  return `ws://${host.includes(':') ? `[${host}]` : host}:${lock.port}`;
}
