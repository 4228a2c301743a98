export { type BatchView, batchHelpLines, handleBatchKey, keyLine } from './batch-keys.ts';
export { BatchTable, type BatchTableProps } from './batch-table.ts';
export { type JobOpening, jobOpening } from './job-opening.ts';
export { type JobRow, type JobTable, tableLines, tableRows } from './job-table.ts';
export { type OpenJobTuiOptions, openJobTui, ribosomeTuiCommand } from './open-job-tui.ts';
export { type BatchProgress, batchProgress } from './progress.ts';
export { type RunBatchViewOptions, runBatchView } from './run-batch-view.ts';
export type { SubscribeSummaries, SummarySource } from './summary-store.ts';
