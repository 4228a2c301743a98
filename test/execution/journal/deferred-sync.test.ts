import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ServerEvent } from '../../../src/core/protocol/index.ts';
import { inTransaction, openDatabase } from '../../../src/execution/journal/database.ts';
import { EventBus } from '../../../src/execution/journal/event-bus.ts';
import type { DeferredSync } from '../../../src/execution/journal/journal.ts';
import { SqliteJournal } from '../../../src/execution/journal/sqlite-journal.ts';
import { StorageFault, StorageGuard } from '../../../src/platform/storage/guard.ts';
import { tempDir } from '../../helpers/server-process.ts';

/**
 * With synchronous FULL (the default), the bus commits without waiting for the disk and syncs the WAL
 * on the thread pool: the event loop is never held by an fsync (issue 36), and still no client sees an
 * event before it is durable, nor out of order.
 */

const dirs: Array<{ remove(): void }> = [];
const journals: SqliteJournal[] = [];
afterEach(() => {
  for (const journal of journals.splice(0)) journal.close();
  for (const dir of dirs.splice(0)) dir.remove();
});

/** A bus on a real database whose syncs the test ends by hand (`release`), or fails (`fail`). */
function setup() {
  const dir = tempDir('ribosome-deferred-');
  dirs.push(dir);
  const file = join(dir.path, 'ribosome.db');
  const db = openDatabase(file);
  const guard = new StorageGuard(file);
  const journal = new SqliteJournal(db, guard);
  journals.push(journal);
  const deferred = journal.deferredSync as DeferredSync;
  const real = deferred.sync;
  const held: Array<{ release(): void; fail(error: Error): void }> = [];
  const syncs: number[] = [];
  // Each sync waits for the test; when released, the real fdatasync runs.
  (deferred as { sync: DeferredSync['sync'] }).sync = () => {
    // How many events are committed when it starts.
    syncs.push(journal.readAfter(0, { maxEvents: 1e6, maxBytes: 1e9 }).length);
    return new Promise<void>((resolve, reject) => {
      held.push({
        release: () => real().then(resolve, reject),
        fail: (error) => reject(guard.failed('journal sync', error)),
      });
    });
  };
  const bus = new EventBus({ journal, runId: 'run-1' });
  const seen: string[] = [];
  bus.subscribe((e: ServerEvent) => {
    if (e.type === 'info') seen.push(e.data.message);
  });
  return { db, guard, journal, bus, seen, held, syncs };
}

const turn = () => new Promise((r) => setImmediate(r));
/** Waits (for a real fdatasync on the thread pool too) until `count` syncs have begun. */
const settled = async (held: unknown[], count: number) => {
  for (let i = 0; i < 500 && held.length < count; i++) await new Promise((r) => setTimeout(r, 2));
  expect(held).toHaveLength(count);
};

describe('the bus with syncs off the event loop', () => {
  it('announces a commit only once its sync ended, and readers for clients see it only then', async () => {
    const { journal, bus, seen, held } = setup();
    let done = false;
    const published = bus.publish('info', { message: 'one' }).then(() => {
      done = true;
    });
    await settled(held, 1);
    // Committed, not yet durable: nobody hears of it, history and handshakes do not see it.
    expect(journal.readAfter(0, { maxEvents: 10, maxBytes: 1e6 })).toHaveLength(1);
    expect(journal.lastSeq()).toBe(0);
    expect(journal.count()).toBe(0);
    expect(journal.recentOfRun('run-1', { maxEvents: 10, maxBytes: 1e6 })).toEqual([]);
    expect(seen).toEqual([]);
    expect(done).toBe(false);
    held[0]!.release();
    await published;
    expect(seen).toEqual(['one']);
    expect(journal.lastSeq()).toBe(1);
    expect(journal.count()).toBe(1);
    expect(journal.recentOfRun('run-1', { maxEvents: 10, maxBytes: 1e6 })).toHaveLength(1);
  });

  it('commits what is published during a sync together after it, in order', async () => {
    const { bus, seen, held, syncs } = setup();
    const all = [bus.publish('info', { message: 'a' })];
    await settled(held, 1);
    for (let i = 0; i < 5; i++) {
      all.push(bus.publish('info', { message: `b${i}` }));
      await turn();
    }
    // One sync at a time: the five wait for the first.
    expect(held).toHaveLength(1);
    held[0]!.release();
    await settled(held, 2);
    expect(seen).toEqual(['a']);
    held[1]!.release();
    await Promise.all(all);
    expect(seen).toEqual(['a', 'b0', 'b1', 'b2', 'b3', 'b4']);
    // The second sync covered the five, committed at once.
    expect(syncs).toEqual([1, 6]);
  });

  it('a synchronous flush during a sync announces what waits first, then its own, each once', async () => {
    const { bus, seen, held, journal } = setup();
    const first = bus.publish('info', { message: 'waiting' });
    await settled(held, 1);
    const second = bus.publish('info', { message: 'flushed' });
    bus.flush();
    expect(seen).toEqual(['waiting', 'flushed']);
    expect(journal.lastSeq()).toBe(2);
    await Promise.all([first, second]);
    // The sync ending later announces nothing again.
    held[0]!.release();
    await turn();
    await turn();
    expect(seen).toEqual(['waiting', 'flushed']);
  });

  it('events of a caller transaction (the engine recorder) go after those waiting for their sync', async () => {
    const { bus, seen, held, db, journal } = setup();
    const first = bus.publish('info', { message: 'before' });
    await settled(held, 1);
    const commit = inTransaction(db, () => {
      void bus.publish('info', { message: 'in transaction' });
      return bus.appendPending();
    });
    commit.deliver();
    await first;
    expect(seen).toEqual(['before', 'in transaction']);
    expect(journal.lastSeq()).toBe(2);
    held[0]!.release();
    await turn();
    expect(seen).toEqual(['before', 'in transaction']);
  });

  it('a sync the disk refuses refuses its events, trips the storage fault, and nothing is announced', async () => {
    const { bus, seen, held, guard } = setup();
    const faults: StorageFault[] = [];
    guard.onFault((fault) => faults.push(fault));
    const first = bus.publish('info', { message: 'lost' });
    await settled(held, 1);
    const later = bus.publish('info', { message: 'after' });
    await turn();
    held[0]!.fail(Object.assign(new Error('EIO: i/o error, fdatasync'), { code: 'EIO' }));
    await expect(first).rejects.toBeInstanceOf(StorageFault);
    // The write after the fault is refused with it, never committed.
    await expect(later).rejects.toBeInstanceOf(StorageFault);
    await turn();
    expect(faults).toHaveLength(1);
    expect(faults[0]!.what).toBe('journal sync');
    expect(seen).toEqual([]);
  });

  it('a real sync: many turns of events, each announced once, in order, only when durable', async () => {
    const dir = tempDir('ribosome-deferred-');
    dirs.push(dir);
    const journal = new SqliteJournal(openDatabase(join(dir.path, 'ribosome.db')));
    journals.push(journal);
    const bus = new EventBus({ journal, runId: 'run-1' });
    const seen: Array<{ message: string; durable: boolean }> = [];
    bus.subscribe((e) => {
      if (e.type !== 'info') return;
      // Durable: within what the journal says is synced.
      const synced = journal
        .readAfter(0, { maxEvents: 1e6, maxBytes: 1e9 })
        .filter((r) => r.seq <= journal.lastSeq());
      seen.push({
        message: e.data.message,
        durable: synced.some((r) => r.json.includes(`"${e.data.message}"`)),
      });
    });
    const all: Array<Promise<unknown>> = [];
    for (let t = 0; t < 40; t++) {
      for (let k = 0; k < 5; k++) all.push(bus.publish('info', { message: `${t}-${k}` }));
      await turn();
    }
    await Promise.all(all);
    expect(seen.map((s) => s.message)).toEqual(
      Array.from({ length: 200 }, (_, i) => `${Math.floor(i / 5)}-${i % 5}`),
    );
    expect(seen.every((s) => s.durable)).toBe(true);
  });

  it('with journalSync normal there is nothing to wait for: no deferred syncs', () => {
    const dir = tempDir('ribosome-deferred-');
    dirs.push(dir);
    const journal = new SqliteJournal(openDatabase(join(dir.path, 'ribosome.db'), 'normal'));
    journals.push(journal);
    expect(journal.deferredSync).toBeUndefined();
  });
});
