/** Reading an execution without a server: its runs, its journal, the server that holds it. */
export { readRuns } from './execution-runs.ts';
export { findExecution } from './find-execution.ts';
export { formatCodons, formatCost, formatRuns } from './format.ts';
export { PlanRecord, planRecordOf, readPlanRecord, writePlanRecord } from './plan-record.ts';
export {
  approvalWaitOf,
  ExecutionReadError,
  firstEventId,
  journalEvents,
  journalEventsAfter,
  journalRunIds,
  lastEventTimes,
  latestEvents,
  liveServerUrl,
  openExecutionDb,
  readState,
  readStateAfter,
  usageWaitOf,
} from './read-execution.ts';
export { type RunRow, runRows } from './run-rows.ts';
export { type ExitSummary, exitSummaryLine } from './summary.ts';
