import { randomUUID } from 'node:crypto';
import type { Journal, JournalRow } from '../journal/journal.ts';
import type { ClientSession } from './client-session.ts';

export type HistoryLimits = { maxEvents: number; maxBytes: number };

/** Builds a ServerEvent frame around already-serialized events, without parsing them again. */
export function frameWithEvents(
  type: string,
  key: string,
  rows: readonly JournalRow[],
  fields: { before?: string; after?: string },
): string {
  const events = rows.map((r) => r.json).join(',');
  const { before = '', after = '' } = fields;
  return `{"id":"${randomUUID()}","timestamp":"${new Date().toISOString()}","type":"${type}","data":{${before}"${key}":[${events}]${after}}}`;
}

/**
 * Streams the journal up to its current end as `history.batch` events (spec 4.3). Each batch is
 * bounded by count and bytes, and the next one is read only once the previous one has left the
 * process, so a million-event journal never sits in memory. Events published meanwhile reach the
 * client live; the client may see those twice and can drop repeats by id.
 */
export async function streamHistory(
  journal: Journal,
  session: ClientSession,
  limits: HistoryLimits,
): Promise<void> {
  const end = journal.lastSeq();
  let after = 0;
  for (;;) {
    const rows = after < end ? journal.readAfter(after, limits).filter((r) => r.seq <= end) : [];
    const last = rows.at(-1);
    if (last) after = last.seq;
    const hasMore = after < end && rows.length > 0;
    await sendAsync(
      session,
      frameWithEvents('history.batch', 'events', rows, { after: `,"hasMore":${hasMore}` }),
    );
    if (!hasMore) return;
  }
}

function sendAsync(session: ClientSession, payload: string): Promise<void> {
  return new Promise((resolve, reject) =>
    session.send(payload, (error) => (error ? reject(error) : resolve())),
  );
}
