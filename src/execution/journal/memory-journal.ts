import {
  type BatchLimits,
  batchOf,
  type IndexedType,
  type Journal,
  type JournalBatch,
  type JournalEntry,
  type JournalRow,
  takeWithinLimits,
} from './journal.ts';

/** An in-memory journal for unit tests; same contract as the SQLite one. */
export class MemoryJournal implements Journal {
  readonly #rows: JournalRow[] = [];

  append(entries: readonly JournalEntry[]): number[] {
    return entries.map((e) => {
      const seq = this.#rows.length + 1;
      this.#rows.push({ seq, runId: e.runId, type: e.type, json: e.json });
      return seq;
    });
  }

  count(): number {
    return this.#rows.length;
  }

  lastSeq(): number {
    return this.#rows.length;
  }

  readAfter(afterSeq: number, limits: BatchLimits): JournalRow[] {
    return takeWithinLimits(this.#rows.slice(afterSeq), limits);
  }

  readBatch(afterSeq: number, throughSeq: number, limits: BatchLimits): JournalBatch {
    return batchOf(takeWithinLimits(this.#rows.slice(afterSeq, throughSeq), limits), afterSeq);
  }

  recentOfRun(runId: string, limits: BatchLimits): JournalRow[] {
    const mine = this.#rows.filter((r) => r.runId === runId).reverse();
    return takeWithinLimits(mine, limits).reverse();
  }

  lastOfRun(runId: string, types: readonly string[]): JournalRow | undefined {
    return this.#rows.findLast((r) => r.runId === runId && types.includes(r.type));
  }

  lastOf(types: readonly string[], beforeSeq = Number.POSITIVE_INFINITY): JournalRow | undefined {
    return this.#rows.findLast((r) => r.seq < beforeSeq && types.includes(r.type));
  }

  ofIndexedType(type: IndexedType): JournalRow[] {
    return this.#rows.filter((r) => r.type === type);
  }

  close(): void {}
}
