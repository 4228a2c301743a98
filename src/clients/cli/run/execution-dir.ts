import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { executionLayout } from '../../../execution/layout/layout.ts';
import type { RunFlags } from './parse-flags.ts';

/**
 * The execution directory: `--execution`, or `ribosome-runs/<plan name>`, which a second
 * `ribosome run` resumes. `--fresh` leaves a directory that already has runs untouched and takes a
 * new one beside it (the default name plus the time); an explicit `--execution` with runs is refused.
 */
export function chooseExecutionDir(
  planName: string,
  flags: Pick<RunFlags, 'execution' | 'fresh'>,
  now = new Date(),
): { ok: true; dir: string; fresh: boolean } | { ok: false; message: string } {
  const dir = resolve(flags.execution ?? `ribosome-runs/${planName}`);
  if (!flags.fresh || !hasRuns(dir)) return { ok: true, dir, fresh: Boolean(flags.fresh) };
  if (flags.execution) {
    return {
      ok: false,
      message: `--fresh: ${dir} already holds runs; name a new --execution directory, or leave --fresh out to resume it`,
    };
  }
  const stamp = now.toISOString().replace(/[:.]/g, '-');
  return { ok: true, dir: resolve(`ribosome-runs/${planName}-${stamp}`), fresh: true };
}

/** A directory holds runs once its database has a transition (a start that failed early leaves none). */
export function hasRuns(dir: string): boolean {
  const file = executionLayout(dir).database;
  if (!existsSync(file)) return false;
  try {
    const db = new DatabaseSync(file, { readOnly: true });
    try {
      return db.prepare('SELECT 1 FROM transitions LIMIT 1').get() !== undefined;
    } finally {
      db.close();
    }
  } catch (error) {
    if (/no such table/.test((error as Error).message)) return false;
    return true; // Unreadable: better refused than written over.
  }
}
