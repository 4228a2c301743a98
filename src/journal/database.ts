import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { DatabaseSync } from 'node:sqlite';

export type SyncMode = 'full' | 'normal';

/**
 * Opens the execution's SQLite database in WAL mode. `full` (default) fsyncs every commit, so a
 * committed event survives even a power loss; `normal` survives a killed process but not the OS.
 * Callers batch writes into one transaction per tick, so `full` costs little.
 */
export function openDatabase(file: string, sync: SyncMode = 'full'): DatabaseSync {
  mkdirSync(dirname(file), { recursive: true });
  const db = new DatabaseSync(file);
  db.exec(
    `PRAGMA journal_mode = WAL; PRAGMA synchronous = ${sync.toUpperCase()}; PRAGMA busy_timeout = 5000;`,
  );
  return db;
}

/** Runs `fn` in one transaction; rolls back and rethrows on error. */
export function inTransaction<T>(db: DatabaseSync, fn: () => T): T {
  db.exec('BEGIN IMMEDIATE');
  try {
    const result = fn();
    db.exec('COMMIT');
    return result;
  } catch (error) {
    if (db.isTransaction) db.exec('ROLLBACK');
    throw error;
  }
}
