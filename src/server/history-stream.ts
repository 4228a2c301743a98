import { randomUUID } from 'node:crypto';
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Journal, JournalRow } from '../journal/journal.ts';

export type HistoryLimits = { maxEvents: number; maxBytes: number };

/** Where a history stream goes: a client's send path, with its backpressure. */
export type HistorySink = {
  /** True once the connection is closing: nothing more is read or sent for it. */
  readonly closing: boolean;
  /** Resolves once at most `bytes` are still unsent to the client, or once it is closing. */
  drained(bytes: number): Promise<void>;
  send(payload: string): void;
};

/** Builds a ServerEvent frame around already-serialized events, without parsing them again. */
export function frameWithEvents(
  type: string,
  key: string,
  rows: readonly JournalRow[],
  fields: { before?: string; after?: string },
): string {
  const events = rows.map((r) => r.json).join(',');
  const { before = '', after = '' } = fields;
  return frame(type, `${before}"${key}":[${events}]${after}`);
}

/** A ServerEvent frame whose data object's inside is already serialized. */
function frame(type: string, data: string): string {
  return `{"id":"${randomUUID()}","timestamp":"${new Date().toISOString()}","type":"${type}","data":{${data}}}`;
}

/**
 * Streams the journal up to its current end as `history.batch` events (spec 4.3). Each batch is
 * bounded by count and bytes, and the next one is read only once the client has taken all but one
 * batch's worth of what it was sent, so a slow reader holds at most about two batches here and a
 * million-event journal never sits in memory. A closing client gets nothing more, not even a read.
 * Each batch waits for a turn of the event loop, so a sync never holds up other clients or the engine.
 * Events published meanwhile reach the client live; the client may see those twice and can drop
 * repeats by id.
 */
export async function streamHistory(
  journal: Journal,
  sink: HistorySink,
  limits: HistoryLimits,
): Promise<void> {
  const end = journal.lastSeq();
  let after = 0;
  for (;;) {
    await sink.drained(limits.maxBytes);
    // One batch per turn of the event loop: other clients' frames and the engine go in between.
    await nextTurn();
    if (sink.closing) return;
    const batch =
      after < end ? journal.readBatch(after, end, limits) : { count: 0, lastSeq: after, json: '' };
    after = batch.lastSeq;
    const hasMore = after < end && batch.count > 0;
    sink.send(frame('history.batch', `"events":[${batch.json}],"hasMore":${hasMore}`));
    if (!hasMore) return;
  }
}
