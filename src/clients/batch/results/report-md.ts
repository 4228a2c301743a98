import type { BatchSummary } from '../summary-schema.ts';
import { type CompareOptions, compareJobs } from './compare.ts';
import { markdownCell } from './escape.ts';
import { groupTable } from './report-cells.ts';

/**
 * `report.md`: the comparison of a matrix batch, one table row per group of jobs (compare.ts), for
 * a pull request or a CI summary. Pure.
 */
export function reportMarkdown(summary: BatchSummary, options: CompareOptions = {}): string {
  const comparison = compareJobs(summary.jobs, options);
  const table = groupTable(comparison);
  const by =
    comparison.axes.length > 0 ? `by ${comparison.axes.map((a) => markdownCell(a)).join(', ')}` : 'as one';
  const row = (cells: readonly string[]) => `| ${cells.map((c) => markdownCell(c)).join(' | ')} |`;
  // The axis values read left-aligned, the figures right-aligned.
  const numeric = table.headers.map((_, i) => i >= comparison.axes.length);
  return [
    `# Batch ${markdownCell(summary.name)}: comparison`,
    '',
    `${summary.jobs.length} jobs in ${comparison.groups.length} groups, ${by}${options.poolWorkspaces ? ' (workspaces pooled)' : ''}; the repeats of a combination are its samples.`,
    '',
    row(table.headers),
    `| ${numeric.map((right) => (right ? '---:' : '---')).join(' | ')} |`,
    ...table.rows.map(row),
    '',
    table.legend,
    '',
  ].join('\n');
}
