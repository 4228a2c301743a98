import { formatDuration } from '../model/format.ts';
import { formatCodons, formatCost } from './format.ts';
import type { RunRow } from './run-rows.ts';

export type ExitSummary = {
  /** The execution's latest run (its lineage says how many codons are done), if any. */
  latest: RunRow | undefined;
  /** What the runs this server started spent. */
  cost: number;
  /** Part of `cost` is an estimate (an agent that reports no cost): shown `~$0.0604`. */
  costEstimated?: boolean;
  /** The server's wall-clock time, start to stop. */
  durationMs: number;
  code: number;
  /** Why the server stopped ("the plan has run", "received SIGTERM"...). */
  reason: string | undefined;
};

/**
 * The last line `run --headless --exit-when-done` writes on stderr, e.g.
 * `ribosome: done: 3/3 codons, $0.0123, 41.4s, exit 0 (the plan has run)`. Pure.
 */
export function exitSummaryLine(s: ExitSummary): string {
  const parts: string[] = [];
  if (s.latest) {
    parts.push(`${formatCodons(s.latest.done, s.latest.total)} codons`);
    if (s.latest.failed.length > 0) parts.push(`failed or stopped: ${s.latest.failed.join(' ')}`);
  }
  parts.push(formatCost(s.cost, s.costEstimated), formatDuration(s.durationMs));
  parts.push(`exit ${s.code}${s.reason ? ` (${s.reason})` : ''}`);
  return `ribosome: ${s.code === 0 ? 'done' : 'not done'}: ${parts.join(', ')}`;
}
