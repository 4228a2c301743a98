import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../../../src/execution/journal/database.ts';
import { EventBus } from '../../../src/execution/journal/event-bus.ts';
import type { Journal, JournalEntry } from '../../../src/execution/journal/journal.ts';
import { MemoryJournal } from '../../../src/execution/journal/memory-journal.ts';
import { SqliteJournal } from '../../../src/execution/journal/sqlite-journal.ts';
import { tempDir } from '../../helpers/server-process.ts';

const temps: Array<{ remove(): void }> = [];
afterEach(() => {
  for (const t of temps.splice(0)) t.remove();
});

function sqlite(): { journal: SqliteJournal; file: string } {
  const t = tempDir();
  temps.push(t);
  const file = join(t.path, 'j.db');
  return { journal: new SqliteJournal(openDatabase(file)), file };
}

const entry = (i: number, runId = 'run-a', size = 10): JournalEntry => ({
  id: `e${i}`,
  timestamp: new Date(0).toISOString(),
  type: 'info',
  runId,
  json: JSON.stringify({ id: `e${i}`, pad: 'x'.repeat(size) }),
});

const typed = (i: number, runId: string, type: string) => ({ ...entry(i, runId), type });

describe.each([
  ['memory', () => new MemoryJournal() as Journal],
  ['sqlite', () => sqlite().journal as Journal],
])('%s journal', (_name, make) => {
  it('appends in order and counts', () => {
    const j = make();
    expect(j.count()).toBe(0);
    expect(j.lastSeq()).toBe(0);
    const seqs = j.append([entry(1), entry(2), entry(3)]);
    expect(seqs).toEqual([1, 2, 3]);
    expect(j.count()).toBe(3);
    expect(j.lastSeq()).toBe(3);
    expect(j.readAfter(0, { maxEvents: 10, maxBytes: 1e6 }).map((r) => r.seq)).toEqual([1, 2, 3]);
    expect(j.readAfter(2, { maxEvents: 10, maxBytes: 1e6 }).map((r) => r.seq)).toEqual([3]);
    j.close();
  });

  it('bounds reads by count and by bytes, and always returns at least one event', () => {
    const j = make();
    j.append(Array.from({ length: 10 }, (_, i) => entry(i, 'run-a', 100)));
    expect(j.readAfter(0, { maxEvents: 4, maxBytes: 1e6 })).toHaveLength(4);
    const size = Buffer.byteLength(entry(0, 'run-a', 100).json);
    expect(j.readAfter(0, { maxEvents: 100, maxBytes: size * 3 })).toHaveLength(3);
    expect(j.readAfter(0, { maxEvents: 100, maxBytes: 1 })).toHaveLength(1);
    j.close();
  });

  it('reads a batch for the wire: the stored JSON joined, bounded by count, UTF-8 bytes and an end', () => {
    const j = make();
    // Two bytes per 'é': a limit counted in characters would let too many through.
    const wide = (i: number): JournalEntry => ({
      ...entry(i),
      json: JSON.stringify({ id: `e${i}`, pad: 'é'.repeat(50) }),
    });
    j.append(Array.from({ length: 10 }, (_, i) => wide(i)));
    const stored = j.readAfter(0, { maxEvents: 100, maxBytes: 1e6 });
    const size = Buffer.byteLength(stored[0]!.json);
    expect(j.readBatch(0, 10, { maxEvents: 100, maxBytes: 1e6 })).toEqual({
      count: 10,
      lastSeq: 10,
      json: stored.map((r) => r.json).join(','),
      bytes: Buffer.byteLength(stored.map((r) => r.json).join(',')),
    });
    expect(JSON.parse(`[${j.readBatch(2, 10, { maxEvents: 3, maxBytes: 1e6 }).json}]`)).toEqual(
      [2, 3, 4].map((i) => JSON.parse(wide(i).json)),
    );
    expect(j.readBatch(0, 10, { maxEvents: 100, maxBytes: size * 3 + 1 })).toMatchObject({
      count: 3,
      lastSeq: 3,
    });
    expect(j.readBatch(0, 10, { maxEvents: 100, maxBytes: 1 })).toMatchObject({ count: 1, lastSeq: 1 });
    // Nothing past the end asked for, and an empty batch past it.
    expect(j.readBatch(5, 7, { maxEvents: 100, maxBytes: 1e6 })).toMatchObject({ count: 2, lastSeq: 7 });
    expect(j.readBatch(10, 10, { maxEvents: 100, maxBytes: 1e6 })).toEqual({
      count: 0,
      lastSeq: 10,
      json: '',
      bytes: 0,
    });
    j.close();
  });

  it('returns the newest events of one run, oldest first', () => {
    const j = make();
    j.append([entry(1, 'old'), entry(2, 'new'), entry(3, 'old'), entry(4, 'new'), entry(5, 'new')]);
    expect(j.recentOfRun('new', { maxEvents: 2, maxBytes: 1e6 }).map((r) => r.seq)).toEqual([4, 5]);
    expect(j.recentOfRun('old', { maxEvents: 10, maxBytes: 1e6 }).map((r) => r.seq)).toEqual([1, 3]);
    expect(j.recentOfRun('none', { maxEvents: 10, maxBytes: 1e6 })).toEqual([]);
    j.close();
  });

  it('finds the newest event of a run among some types', () => {
    const j = make();
    j.append([
      typed(1, 'a', 'codon.started'),
      typed(2, 'a', 'codon.completed'),
      typed(3, 'b', 'codon.started'),
      typed(4, 'a', 'codon.started'),
      typed(5, 'a', 'info'),
    ]);
    expect(j.lastOfRun('a', ['codon.started', 'codon.completed'])?.seq).toBe(4);
    expect(j.lastOfRun('a', ['codon.completed'])?.seq).toBe(2);
    expect(j.lastOfRun('b', ['codon.completed'])).toBeUndefined();
    expect(j.lastOfRun('a', [])).toBeUndefined();
    j.close();
  });

  it('finds the newest event of some types over every run, before a point; reads an indexed type whole', () => {
    const j = make();
    j.append([
      typed(1, 'a', 'codon.started'),
      typed(2, 'a', 'sentinel.action'),
      typed(3, 'b', 'codon.completed'),
      typed(4, 'b', 'sentinel.action'),
      typed(5, 'b', 'info'),
    ]);
    expect(j.lastOf(['codon.started', 'codon.completed'])?.seq).toBe(3);
    expect(j.lastOf(['codon.started', 'codon.completed'], 3)?.seq).toBe(1);
    expect(j.lastOf(['codon.completed'], 3)).toBeUndefined();
    expect(j.lastOf([])).toBeUndefined();
    expect(j.ofIndexedType('sentinel.action').map((r) => [r.seq, r.runId])).toEqual([
      [2, 'a'],
      [4, 'b'],
    ]);
    j.close();
  });
});

describe('sqlite journal: indexed types', () => {
  it('reads sentinel.action through its partial index, not the whole table', () => {
    const { journal, file } = sqlite();
    journal.close();
    const db = openDatabase(file);
    const plan = db
      .prepare(`EXPLAIN QUERY PLAN SELECT seq FROM events WHERE type = 'sentinel.action' ORDER BY seq`)
      .all() as Array<{ detail: string }>;
    expect(plan.map((p) => p.detail).join('; ')).toContain('events_type_sentinel.action');
    db.close();
  });
});

describe('sqlite journal durability', () => {
  it('keeps events, count and order across a reopen', () => {
    const { journal, file } = sqlite();
    journal.append(Array.from({ length: 100 }, (_, i) => entry(i)));
    journal.close();
    const reopened = new SqliteJournal(openDatabase(file));
    expect(reopened.count()).toBe(100);
    expect(reopened.lastSeq()).toBe(100);
    reopened.append([entry(100)]);
    const all = reopened.readAfter(0, { maxEvents: 1000, maxBytes: 1e9 });
    expect(all.map((r) => JSON.parse(r.json).id)).toEqual(Array.from({ length: 101 }, (_, i) => `e${i}`));
    reopened.close();
  });

  it('goes on in a journal of random UUID ids with time-ordered ones: history as it was, then the new', async () => {
    const { journal, file } = sqlite();
    const old = Array.from({ length: 200 }, (_, i) => ({ ...entry(i), id: randomUUID() }));
    journal.append(old);
    journal.close();
    const reopened = new SqliteJournal(openDatabase(file));
    const bus = new EventBus({ journal: reopened, runId: 'run-b' });
    const added = await Promise.all(
      Array.from({ length: 50 }, (_, i) => bus.publish('info', { message: `${i}` })),
    );
    const all = reopened.readAfter(0, { maxEvents: 1000, maxBytes: 1e9 });
    expect(all.slice(0, 200).map((r) => r.json)).toEqual(old.map((e) => e.json));
    expect(all.slice(200).map((r) => JSON.parse(r.json).id)).toEqual(added.map((e) => e.id));
    // Still one id per event: the unique index holds for both kinds.
    expect(() => reopened.append([{ ...entry(999), id: added[3]!.id }])).toThrow();
    expect(() => reopened.append([{ ...entry(998), id: old[7]!.id }])).toThrow();
    expect(reopened.count()).toBe(250);
    reopened.close();
  });

  it('refuses a duplicate event id and leaves the whole batch out', () => {
    const { journal } = sqlite();
    journal.append([entry(1)]);
    expect(() => journal.append([entry(2), entry(1)])).toThrow();
    expect(journal.count()).toBe(1);
    expect(journal.readAfter(0, { maxEvents: 10, maxBytes: 1e6 })).toHaveLength(1);
    journal.close();
  });
});
