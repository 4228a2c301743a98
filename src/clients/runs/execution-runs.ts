import { readPlanRecord } from './plan-record.ts';
import { lastEventTimes, liveServerUrl, openExecutionDb, readState } from './read-execution.ts';
import { type RunRow, runRows } from './run-rows.ts';

/**
 * Every run of an execution, as `ribosome runs` lists them, read from its files (the database is read,
 * never written: it works while a server runs, and after one stopped). Throws what opening it threw
 * (ExecutionReadError for a directory that is not an execution).
 */
export function readRuns(executionDir: string): RunRow[] {
  const db = openExecutionDb(executionDir);
  try {
    return runRows(readState(db), {
      plan: readPlanRecord(executionDir),
      serverAlive: liveServerUrl(executionDir) !== undefined,
      lastEventAt: lastEventTimes(db),
      now: new Date(),
    });
  } finally {
    db.close();
  }
}
