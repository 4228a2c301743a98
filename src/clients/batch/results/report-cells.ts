import { formatCost, formatDuration, formatTokens } from '../../model/format.ts';
import type { Comparison, Group, Spread } from './compare.ts';

/**
 * The comparison's table as text cells, the same in report.md and report.html: one row per group,
 * its axis values first. Pure.
 */
export type GroupTable = { headers: string[]; rows: string[][]; legend: string };

export const COLUMNS = [
  'jobs',
  'passed',
  'success',
  'gates first try',
  'cost',
  'time',
  'output tokens',
  'infra-failed',
  'retries',
  'rollbacks',
  'sentinel actions',
] as const;

export function groupTable(comparison: Comparison): GroupTable {
  return {
    headers: [...comparison.axes, ...COLUMNS],
    rows: comparison.groups.map((g) => [...axisCells(comparison.axes, g), ...groupCells(g)]),
    legend: `success: passed of the jobs with a verdict (an infrastructure failure is none). cost, time, output tokens: median (min–max)${
      comparison.groups.some((g) => g.costUsd?.p25 !== undefined || g.durationMs?.p25 !== undefined)
        ? ' [p25–p75, from 4 jobs]'
        : ''
    }, over the jobs that ended.${comparison.groups.some((g) => g.costEstimated) ? ' ~: part of the cost is an estimate.' : ''}`,
  };
}

/** The group's axis values; a job listed by hand (no axes) is named in the first column. */
function axisCells(axes: readonly string[], g: Group): string[] {
  if (Object.keys(g.axes).length === 0 && axes.length > 0)
    return axes.map((_, i) => (i === 0 ? `job ${g.label}` : ''));
  return axes.map((a) => g.axes[a] ?? '');
}

function groupCells(g: Group): string[] {
  return [
    String(g.jobIds.length),
    `${g.passed}/${g.passed + g.failed}`,
    percent(g.successRate),
    g.gatedCodons > 0 ? `${g.gatesFirstTry}/${g.gatedCodons} (${percent(g.gatesFirstTryRate)})` : NONE,
    spreadText(g.costUsd, (usd) => formatCost(usd, g.costEstimated)),
    spreadText(g.durationMs, formatDuration),
    spreadText(g.outputTokens, (n) => formatTokens(Math.round(n))),
    String(g.infraFailed),
    String(g.retries),
    String(g.rollbacks),
    String(g.sentinelActions),
  ];
}

/** What a cell without a value says. */
export const NONE = '–';

export const percent = (rate: number | null): string => (rate === null ? NONE : `${Math.round(rate * 100)}%`);

/** `$2.50 ($1.00–$4.00) [$1.75–$3.25]`: median, min–max, and the quartiles when there are any. */
export function spreadText(s: Spread | undefined, format: (n: number) => string): string {
  if (!s) return NONE;
  const range = s.n > 1 ? ` (${format(s.min)}–${format(s.max)})` : '';
  const quartiles = s.p25 !== undefined && s.p75 !== undefined ? ` [${format(s.p25)}–${format(s.p75)}]` : '';
  return `${format(s.median)}${range}${quartiles}`;
}
