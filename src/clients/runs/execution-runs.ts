import { readPlanRecord } from './plan-record.ts';
import {
  approvalWaitOf,
  lastEventTimes,
  liveServerUrl,
  openExecutionDb,
  readState,
  usageWaitOf,
} from './read-execution.ts';
import { type RunRow, runRows } from './run-rows.ts';

/**
 * Every run of an execution, as `ribosome runs` lists them, read from its files (the database is read,
 * never written: it works while a server runs, and after one stopped). Throws what opening it threw
 * (ExecutionReadError for a directory that is not an execution).
 */
export function readRuns(executionDir: string): RunRow[] {
  const db = openExecutionDb(executionDir);
  try {
    const state = readState(db);
    // Only a run still running can be waiting: the others' waits ended with them.
    const running = state.runOrder.filter((id) => state.runs[id]?.status === 'running');
    const usageWaits = new Map(
      running.flatMap((id) => {
        const wait = usageWaitOf(db, id);
        return wait ? [[id, wait] as const] : [];
      }),
    );
    return runRows(state, {
      plan: readPlanRecord(executionDir),
      serverAlive: liveServerUrl(executionDir) !== undefined,
      lastEventAt: lastEventTimes(db),
      now: new Date(),
      usageWaits,
      approvalWait: approvalWaitOf(db),
    });
  } finally {
    db.close();
  }
}
