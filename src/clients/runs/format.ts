import { ESTIMATE_LEGEND, markEstimate } from '../../llm/estimated-cost.ts';
import { APPROVAL_WAIT_WORD } from '../model/approval-wait.ts';
import { formatDuration } from '../model/format.ts';
import { usageWaitState } from '../model/usage-wait.ts';
import type { RunRow } from './run-rows.ts';

/** `$0.0604`, `~$0.0604` when `estimated` (see llm/estimated-cost.ts). */
export const formatCost = (usd: number, estimated?: boolean) => markEstimate(`$${usd.toFixed(4)}`, estimated);

export const formatCodons = (done: number, total: number | null) => `${done}/${total ?? '?'}`;

/**
 * `completed`, `rolled back (stopped: w)`, `failed (failed: x; stopped: w)`; a running run waiting for
 * a usage limit: `waiting for usage limit until 15:01 (two)`; one waiting for a person: `waiting for
 * approval of design`, after its status when its server stopped meanwhile (`completed; waiting ...`).
 */
function statusCell(r: RunRow, now: number): string {
  if (r.approvalWait) {
    const waiting = `${APPROVAL_WAIT_WORD} of ${r.approvalWait.codonId}`;
    return r.status === 'running' ? waiting : `${r.status}; ${waiting}`;
  }
  if (r.usageWait) return `${usageWaitState(r.usageWait, now)} (${r.usageWait.codonId})`;
  const failed = r.failed.filter((id) => !r.stopped.includes(id));
  const ended = [
    ...(failed.length > 0 ? [`failed: ${failed.join(', ')}`] : []),
    ...(r.stopped.length > 0 ? [`stopped: ${r.stopped.join(', ')}`] : []),
  ];
  const status = r.status === 'rolled-back' ? 'rolled back' : r.status;
  return ended.length > 0 ? `${status} (${ended.join('; ')})` : status;
}

/**
 * The table of `ribosome runs`: one line per run, columns padded to fit; the legend of `~` under it
 * when used. `now`: whether a wait's clock needs its date.
 */
export function formatRuns(rows: readonly RunRow[], now = Date.now()): string {
  if (rows.length === 0) return 'no runs yet';
  const header = ['run', 'status', 'codons', 'cost', 'started', 'duration', 'branch'];
  const cells = rows.map((r) => [
    r.id,
    statusCell(r, now),
    formatCodons(r.done, r.total),
    formatCost(r.cost, r.costEstimated),
    r.startedAt.replace('T', ' ').replace(/\.\d+Z$/, 'Z'),
    formatDuration(r.durationMs),
    r.branch ?? '',
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i]?.length ?? 0)));
  const line = (c: string[]) =>
    c
      .map((cell, i) => cell.padEnd(widths[i] ?? 0))
      .join('  ')
      .trimEnd();
  const legend = rows.some((r) => r.costEstimated) ? [ESTIMATE_LEGEND] : [];
  return [line(header), ...cells.map(line), ...legend].join('\n');
}
