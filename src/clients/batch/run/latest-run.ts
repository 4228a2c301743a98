import { existsSync } from 'node:fs';
import { executionLayout } from '../../../execution/layout/layout.ts';
import {
  lastEventTimes,
  liveServerUrl,
  openExecutionDb,
  type RunRow,
  readPlanRecord,
  readState,
  runRows,
} from '../../runs/index.ts';

/** The latest run of an execution, as `ribosome runs` shows it; undefined when it has none. */
export function latestRun(executionDir: string): RunRow | undefined {
  if (!existsSync(executionLayout(executionDir).database)) return undefined;
  const db = openExecutionDb(executionDir);
  try {
    const rows = runRows(readState(db), {
      plan: readPlanRecord(executionDir),
      serverAlive: liveServerUrl(executionDir) !== undefined,
      lastEventAt: lastEventTimes(db),
      now: new Date(),
    });
    return rows.at(-1);
  } finally {
    db.close();
  }
}
