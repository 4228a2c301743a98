import { join } from 'node:path';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import type { ServerEvent } from '../../../src/core/protocol/index.ts';
import { Recorder } from '../../../src/engine/recorder.ts';
import { guardedTransaction, openDatabase } from '../../../src/execution/journal/database.ts';
import { EventBus } from '../../../src/execution/journal/event-bus.ts';
import { SqliteJournal } from '../../../src/execution/journal/sqlite-journal.ts';
import { SqliteTransitionLog, StateStore } from '../../../src/execution/state/state-store.ts';
import { StorageGuard } from '../../../src/platform/storage/guard.ts';
import { tempDir } from '../../helpers/server-process.ts';

/**
 * The state's transitions and the journal's events live in one SQLite database: a transition and its
 * state.transition event are written in one transaction, so no kill or failed write leaves one ahead of
 * the other, and clients get the events only once both are durable.
 */

const dirs: Array<{ remove(): void }> = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) dir.remove();
});

function setup() {
  const dir = tempDir('ribosome-atomic-');
  dirs.push(dir);
  const file = join(dir.path, 'ribosome.db');
  const db = openDatabase(file, 'normal');
  const guard = new StorageGuard(file);
  const journal = new SqliteJournal(db, guard);
  const bus = new EventBus({ journal, runId: 'run-1' });
  const store = new StateStore(new SqliteTransitionLog(db, guard));
  const recorder = new Recorder({
    bus,
    state: store,
    logger: pino({ level: 'silent' }),
    atomically: (write) => guardedTransaction(db, guard, 'state and journal', write),
  });
  const seen: ServerEvent[] = [];
  bus.subscribe((e) => seen.push(e));
  const rows = () => ({
    transitions: (db.prepare('SELECT count(*) AS n FROM transitions').get() as { n: number }).n,
    events: (db.prepare('SELECT type FROM events ORDER BY seq').all() as Array<{ type: string }>).map(
      (r) => r.type,
    ),
  });
  return { db, guard, journal, bus, store, recorder, seen, rows };
}

const started = { runId: 'run-1', startedAt: new Date(0).toISOString(), reason: 'start' as const };

describe('recording transitions and events in one transaction', () => {
  it('a transition, its state.transition and the events that go with it are all durable before any is sent', async () => {
    const { recorder, seen, rows, db, bus } = setup();
    // At delivery every row is committed (a client never sees what a kill could still undo).
    const atDelivery: Array<{ open: boolean; transitions: number }> = [];
    bus.subscribe(() => atDelivery.push({ open: db.isTransaction, transitions: rows().transitions }));
    void recorder.publish('info', { message: 'warm-up' });
    await recorder.applyAll(
      [{ type: 'RunStarted', data: started }],
      [{ type: 'info', data: { message: 'with the run' } }],
    );
    expect(atDelivery).toEqual(Array(3).fill({ open: false, transitions: 1 }));
    expect(rows()).toEqual({ transitions: 1, events: ['info', 'state.transition', 'info'] });
    expect(seen.map((e) => e.type)).toEqual(['info', 'state.transition', 'info']);
  });

  it('a failed journal write leaves no transition behind, sends nothing, and is a storage fault', async () => {
    const { recorder, journal, seen, rows, guard, db } = setup();
    // The insert fails as SQLite does on a full disk, inside the journal's guarded write.
    journal.append = () =>
      guard.write('journal append', () => {
        throw Object.assign(new Error('database or disk is full'), {
          code: 'ERR_SQLITE_ERROR',
          errcode: 13,
          errstr: 'database or disk is full',
        });
      });
    await expect(recorder.apply('RunStarted', started)).rejects.toThrow(/full/);
    expect(rows()).toEqual({ transitions: 0, events: [] });
    expect(seen).toEqual([]);
    expect(guard.fault?.kind).toBe('disk-full');
    // The next server reads the database: the state is where the journal is.
    expect(new StateStore(new SqliteTransitionLog(db)).state.runOrder).toEqual([]);
    expect(db.isTransaction).toBe(false);
  });

  it('a transition the state refuses is an error of the caller, not of the storage', async () => {
    const { recorder, rows, guard, seen } = setup();
    await expect(recorder.apply('RunCompleted', { runId: 'nope', endedAt: 'x' })).rejects.toThrow(
      /unknown run/,
    );
    expect(guard.fault).toBeUndefined();
    await recorder.apply('RunStarted', started);
    expect(rows()).toEqual({ transitions: 1, events: ['state.transition'] });
    expect(seen).toHaveLength(1);
  });
});
