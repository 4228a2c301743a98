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

/**
 * Runs `fn` in one transaction; rolls back and rethrows on error. Inside a transaction already open,
 * `fn` joins it: the outer one commits or rolls back everything together.
 */
export function inTransaction<T>(db: DatabaseSync, fn: () => T): T {
  if (db.isTransaction) return fn();
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

/** What may write the execution's storage: a StorageGuard (src/platform/storage/guard.ts), or nothing in tests. */
type Guard = { write<T>(what: string, write: () => T): T } | undefined;

/**
 * One transaction over several tables (the state's transitions and the journal's events), whose
 * BEGIN and COMMIT go through the storage guard: a disk that refuses them is a storage fault, while
 * an error of `fn` itself (a transition the state refuses) only rolls back and is rethrown as it is.
 */
export function guardedTransaction(db: DatabaseSync, guard: Guard, what: string, fn: () => void): void {
  if (db.isTransaction) {
    fn();
    return;
  }
  const write = (step: () => void) => (guard ? guard.write(what, step) : step());
  write(() => db.exec('BEGIN IMMEDIATE'));
  try {
    fn();
    write(() => db.exec('COMMIT'));
  } catch (error) {
    if (db.isTransaction) db.exec('ROLLBACK');
    throw error;
  }
}
