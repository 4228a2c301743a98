/** One journaled event as stored: its position, its run and its serialized JSON (sent as is). */
export type JournalRow = { seq: number; runId: string; type: string; json: string };
export type JournalEntry = Omit<JournalRow, 'seq'> & { id: string; timestamp: string };

/**
 * Event types the journal indexes on their own: rare events read over the whole execution (a redo's
 * `max` counts the sentinel.action redos of every run; review comments and reviews, docs/review.md).
 */
export const INDEXED_TYPES = ['sentinel.action', 'review.comment', 'review.sent'] as const;
export type IndexedType = (typeof INDEXED_TYPES)[number];

/** Where a history read may stop: whichever limit comes first. */
export type BatchLimits = { maxEvents: number; maxBytes: number };

/**
 * A run of consecutive events as they go on the wire: their stored JSON joined with commas (the
 * inside of a JSON array) and its size in UTF-8 bytes, how many there are and the sequence number of
 * the last one.
 */
export type JournalBatch = { count: number; lastSeq: number; json: string; bytes: number };

/**
 * The durable event journal. Appends are synchronous and committed when they return, so callers
 * can send an event only after it is safe on disk ("persist, then announce").
 */
export interface Journal {
  /** Appends the entries in one transaction; returns their sequence numbers. */
  append(entries: readonly JournalEntry[]): number[];
  /** Number of events in the journal. */
  count(): number;
  /** Sequence number of the newest event (0 when empty). */
  lastSeq(): number;
  /** Events after `afterSeq` in order, bounded by the limits (at least one event if any remain). */
  readAfter(afterSeq: number, limits: BatchLimits): JournalRow[];
  /**
   * Events after `afterSeq` up to `throughSeq`, in order and bounded by the limits like `readAfter`
   * (at least one if any remain), already joined for the wire: what history.sync sends, read
   * without an object per event.
   */
  readBatch(afterSeq: number, throughSeq: number, limits: BatchLimits): JournalBatch;
  /** The newest events of a run, oldest first, bounded by the limits. */
  recentOfRun(runId: string, limits: BatchLimits): JournalRow[];
  /** The newest event of a run whose type is one of `types`. */
  lastOfRun(runId: string, types: readonly string[]): JournalRow | undefined;
  /** The newest event of any run whose type is one of `types`, before `beforeSeq` if given. */
  lastOf(types: readonly string[], beforeSeq?: number): JournalRow | undefined;
  /** Every event of an indexed type (few, and found without reading the others), oldest first. */
  ofIndexedType(type: IndexedType): JournalRow[];
  close(): void;
}

/** Joins rows taken within the limits into a batch; `afterSeq` is its lastSeq when there is none. */
export function batchOf(rows: readonly JournalRow[], afterSeq: number): JournalBatch {
  const json = rows.map((r) => r.json).join(',');
  return {
    count: rows.length,
    lastSeq: rows.at(-1)?.seq ?? afterSeq,
    json,
    bytes: Buffer.byteLength(json),
  };
}

/** Takes rows in order until a limit is reached; always takes the first row. */
export function takeWithinLimits(rows: Iterable<JournalRow>, limits: BatchLimits): JournalRow[] {
  const out: JournalRow[] = [];
  let bytes = 0;
  for (const row of rows) {
    const size = Buffer.byteLength(row.json);
    if (out.length > 0 && (out.length >= limits.maxEvents || bytes + size > limits.maxBytes)) break;
    out.push(row);
    bytes += size;
  }
  return out;
}
