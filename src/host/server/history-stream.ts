import { randomUUID } from 'node:crypto';
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Journal, JournalBatch, JournalRow } from '../../execution/journal/journal.ts';

export type HistoryLimits = { maxEvents: number; maxBytes: number };

/** Where a history stream goes: a client's send path, with its backpressure. */
export type HistorySink = {
  /** True once the connection is closing: nothing more is read or sent for it. */
  readonly closing: boolean;
  /**
   * Queues one text frame of `bytes` UTF-8 bytes made of `parts` behind everything already queued
   * for the client (live events included); resolves once the socket has taken it (handed it to the
   * kernel), or once the connection is closing.
   */
  sentFrame(parts: readonly string[], bytes: number): Promise<void>;
};

/** A history.batch frame around events already joined, in parts (never copied into one string). */
function batchFrame(batch: JournalBatch, hasMore: boolean): [parts: string[], bytes: number] {
  const head = `{"id":"${randomUUID()}","timestamp":"${new Date().toISOString()}","type":"history.batch","data":{"events":[`;
  const tail = `],"hasMore":${hasMore}}}`;
  // head and tail are ASCII: a character is a byte.
  return [[head, batch.json, tail], head.length + batch.bytes + tail.length];
}

/** Batches a stream has queued and the socket has not taken yet, at most: memory per client. */
export const HISTORY_BATCHES_IN_FLIGHT = 2;

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
 * bounded by count and bytes, and the next one is read only once the socket has taken all but one of
 * those sent (HISTORY_BATCHES_IN_FLIGHT), so a stream holds at most two batches here and a
 * million-event journal never sits in memory. A batch queues behind the live events already queued
 * for the client and is taken as soon as they are: live events never starve the history (waiting for
 * the socket to drain empty did, while live events kept it busy), and the history never holds live
 * events back by more than a batch or two. A closing client gets nothing more, not even a read.
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
  const inFlight: Array<Promise<void>> = [];
  for (;;) {
    if (inFlight.length >= HISTORY_BATCHES_IN_FLIGHT) await inFlight.shift();
    // One batch per turn of the event loop: other clients' frames and the engine go in between.
    await nextTurn();
    if (sink.closing) return;
    const batch =
      after < end ? journal.readBatch(after, end, limits) : { count: 0, lastSeq: after, json: '', bytes: 0 };
    after = batch.lastSeq;
    const hasMore = after < end && batch.count > 0;
    inFlight.push(sink.sentFrame(...batchFrame(batch, hasMore)));
    if (!hasMore) return;
  }
}
