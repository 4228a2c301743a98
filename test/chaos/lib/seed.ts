/**
 * A journal of a few MiB, written straight into an execution directory's database before its first
 * server starts (as bench/journal.ts seeds one): `info` events of an old run, served by history.sync
 * like any others, so a flood of syncs has something heavy to read.
 */
import { join } from 'node:path';
import { openDatabase } from '../../../src/execution/journal/database.ts';
import { SqliteJournal } from '../../../src/execution/journal/sqlite-journal.ts';

/** Appends about `bytes` of events; returns how many. */
export function seedJournal(executionDir: string, bytes: number): number {
  const journal = new SqliteJournal(openDatabase(join(executionDir, '.ribosome/ribosome.db'), 'normal'));
  const message = 'chaos '.repeat(30);
  const at = new Date().toISOString();
  const size = JSON.stringify({ id: 'seed-000000', timestamp: at, type: 'info', data: { message } }).length;
  const count = Math.ceil(bytes / size);
  try {
    for (let i = 0; i < count; i += 5_000) {
      journal.append(
        Array.from({ length: Math.min(5_000, count - i) }, (_, k) => {
          const id = `seed-${String(i + k).padStart(6, '0')}`;
          return {
            id,
            runId: 'seeded',
            type: 'info',
            timestamp: at,
            json: JSON.stringify({ id, timestamp: at, type: 'info', data: { message } }),
          };
        }),
      );
    }
  } finally {
    journal.close();
  }
  return count;
}
