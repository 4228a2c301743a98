import {
  exitSummaryLine,
  lastEventTimes,
  openExecutionDb,
  planRecordOf,
  readState,
  runRows,
} from '../../runs/index.ts';

/**
 * The line that ends a headless `--exit-when-done` run on stderr: codons done of total and those that
 * failed, as the database recorded them (read back, read-only, now that the server has stopped), what
 * this server's runs spent, how long it ran, and why it stopped.
 */
export function summaryLine(
  executionDir: string,
  plan: Parameters<typeof planRecordOf>[0],
  startedAt: Date,
  code: number,
  reason: string | undefined,
): string {
  const now = new Date();
  let rows: ReturnType<typeof runRows> = [];
  try {
    const db = openExecutionDb(executionDir);
    try {
      rows = runRows(readState(db), {
        plan: planRecordOf(plan),
        serverAlive: false,
        lastEventAt: lastEventTimes(db),
        now,
      });
    } finally {
      db.close();
    }
  } catch {
    // An unreadable database (the storage fault that stopped the server): the line says less.
  }
  const ours = rows.filter((r) => Date.parse(r.startedAt) >= startedAt.getTime());
  return exitSummaryLine({
    latest: rows.at(-1),
    cost: ours.reduce((sum, r) => sum + r.cost, 0),
    costEstimated: ours.some((r) => r.costEstimated),
    durationMs: now.getTime() - startedAt.getTime(),
    code,
    reason,
  });
}
