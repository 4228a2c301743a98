import { describe, expect, it } from 'vitest';
import { EventBus } from '../../../src/execution/journal/event-bus.ts';
import { newEventId } from '../../../src/execution/journal/event-id.ts';
import { MemoryJournal } from '../../../src/execution/journal/memory-journal.ts';

const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const msOf = (id: string) => Number.parseInt(id.replaceAll('-', '').slice(0, 12), 16);

describe('event ids', () => {
  it('are UUID v7 strings carrying the time they were made', () => {
    const before = Date.now();
    const id = newEventId();
    expect(id).toMatch(UUID_V7);
    expect(msOf(id)).toBeGreaterThanOrEqual(before);
    expect(msOf(id)).toBeLessThanOrEqual(Date.now());
  });

  it('increase and never repeat, many in one millisecond and when the clock goes back', () => {
    const at = Date.now() + 60_000;
    // 10 000 in one millisecond overflow the 12-bit counter: the next millisecond is borrowed.
    const ids = [
      ...Array.from({ length: 10_000 }, () => newEventId(at)),
      ...Array.from({ length: 100 }, () => newEventId(at - 5_000)),
      newEventId(at + 10_000),
    ];
    expect(new Set(ids).size).toBe(ids.length);
    for (let i = 1; i < ids.length; i++) expect(ids[i]! > ids[i - 1]!).toBe(true);
    expect(ids.every((id) => UUID_V7.test(id))).toBe(true);
  });

  it('are what the bus gives the events it journals, and what the journal stores', async () => {
    const journal = new MemoryJournal();
    const bus = new EventBus({ journal, runId: 'run-1' });
    const events = await Promise.all(
      Array.from({ length: 50 }, (_, i) => bus.publish('info', { message: `m${i}` })),
    );
    const ids = events.map((e) => e.id);
    expect(ids.every((id) => UUID_V7.test(id))).toBe(true);
    expect([...ids].sort()).toEqual(ids);
    const stored = journal.readAfter(0, { maxEvents: 100, maxBytes: 1e9 }).map((r) => JSON.parse(r.json).id);
    expect(stored).toEqual(ids);
  });
});
