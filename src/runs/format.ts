import type { RunRow } from './run-rows.ts';

/** 41s, 3m05s, 2h04m: a duration for people. */
export function formatDuration(ms: number): string {
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(m / 60)}h${String(m % 60).padStart(2, '0')}m`;
}

export const formatCost = (usd: number) => `$${usd.toFixed(4)}`;

export const formatCodons = (done: number, total: number | null) => `${done}/${total ?? '?'}`;

/** The table of `ribosome runs`: one line per run, columns padded to fit. */
export function formatRuns(rows: readonly RunRow[]): string {
  if (rows.length === 0) return 'no runs yet';
  const header = ['run', 'status', 'codons', 'cost', 'started', 'duration', 'branch'];
  const cells = rows.map((r) => [
    r.id,
    r.status + (r.failed.length > 0 ? ` (failed: ${r.failed.join(', ')})` : ''),
    formatCodons(r.done, r.total),
    formatCost(r.cost),
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
  return [line(header), ...cells.map(line)].join('\n');
}
