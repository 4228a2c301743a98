import type { DoctorReport } from './check-result.ts';

/** A plain-text table: check, status, detail, fix; one row per check, columns padded to fit. */
export function formatTable(report: DoctorReport): string {
  const header = ['check', 'status', 'detail', 'fix'];
  const rows = report.checks.map((c) => [c.check, c.status, c.detail, c.fix ?? '']);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, i) => (i === cells.length - 1 ? cell : cell.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  const failed = report.checks.filter((c) => c.status === 'fail').length;
  const warned = report.checks.filter((c) => c.status === 'warn').length;
  const summary = report.ok
    ? `all checks passed${warned > 0 ? ` (${warned} warning${warned === 1 ? '' : 's'})` : ''}`
    : `${failed} check${failed === 1 ? '' : 's'} failed`;
  return [line(header), ...rows.map(line), '', summary].join('\n');
}
