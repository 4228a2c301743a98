import { formatCost, formatDuration } from '../../model/format.ts';
import type { BatchSummary } from '../summary-schema.ts';
import { type CompareOptions, compareJobs } from './compare.ts';
import { html } from './escape.ts';
import { groupTable } from './report-cells.ts';
import { stripChart, successChart } from './svg-charts.ts';

/**
 * `report.html`: the comparison of a matrix batch as one file that needs nothing else: its CSS
 * inline, its charts inline SVG drawn by svg-charts.ts, no script and no address to load anything
 * from, light or dark as the reader's system prefers. Every text from the batch is escaped. Pure.
 */
export function reportHtml(summary: BatchSummary, options: CompareOptions = {}): string {
  const comparison = compareJobs(summary.jobs, options);
  const table = groupTable(comparison);
  const axisCount = comparison.axes.length;
  const head = table.headers
    .map((h, i) => `<th${i >= axisCount ? ' class="num"' : ''}>${html(h)}</th>`)
    .join('');
  const rows = table.rows.map(
    (cells) =>
      `<tr>${cells.map((c, i) => (i < axisCount ? `<th scope="row">${html(c)}</th>` : `<td class="num">${figures(c)}</td>`)).join('')}</tr>`,
  );
  const title = `Batch ${summary.name}: comparison`;
  const { groups } = comparison;
  return [
    '<!doctype html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    '<meta name="color-scheme" content="light dark">',
    `<title>${html(title)}</title>`,
    `<style>${STYLE}</style>`,
    '</head>',
    '<body>',
    `<h1>${html(title)}</h1>`,
    `<p class="muted">${html(`${summary.jobs.length} jobs in ${groups.length} groups${axisCount > 0 ? `, by ${comparison.axes.join(', ')}` : ''}${options.poolWorkspaces ? ' (workspaces pooled)' : ''}; ${summary.state}, total cost ${formatCost(summary.spentUsd)}.`)}</p>`,
    '<h2>Groups</h2>',
    '<div class="scroll"><table>',
    `<thead><tr>${head}</tr></thead>`,
    `<tbody>\n${rows.join('\n')}\n</tbody>`,
    '</table></div>',
    `<p class="muted">${html(table.legend)}</p>`,
    '<h2>Success rate</h2>',
    successChart(groups),
    '<h2>Cost per job</h2>',
    stripChart(groups, {
      title: 'Cost of each job, per group',
      value: (p) => p.costUsd,
      spread: (g) => g.costUsd,
      format: (n) => formatCost(n),
    }),
    '<h2>Time per job</h2>',
    stripChart(groups, {
      title: 'Time of each job, per group',
      value: (p) => p.durationMs,
      spread: (g) => g.durationMs,
      format: formatDuration,
    }),
    `<p class="muted legend"><span class="key passed"></span>passed <span class="key failed"></span>failed <span class="key infra-failed"></span>infra-failed; the box spans p25–p75 (from 4 jobs), the line min–max, the upright mark the median.</p>`,
    '</body>',
    '</html>',
    '',
  ].join('\n');
}

/** A figure cell may wrap between its parts (median, range, quartiles), never inside one. */
const figures = (cell: string) =>
  cell
    .split(' ')
    .map((part) => `<span class="part">${html(part)}</span>`)
    .join(' ');

const STYLE = `
:root { --bg: #ffffff; --fg: #1f2328; --muted: #656d76; --grid: #d0d7de; --track: #eef1f4; --accent: #0969da;
  --ok: #1a7f37; --bad: #cf222e; --warn: #9a6700; --box: rgba(9, 105, 218, 0.18); }
@media (prefers-color-scheme: dark) {
  :root { --bg: #0d1117; --fg: #e6edf3; --muted: #8d96a0; --grid: #30363d; --track: #161b22; --accent: #4493f8;
    --ok: #3fb950; --bad: #f85149; --warn: #d29922; --box: rgba(68, 147, 248, 0.25); }
}
body { background: var(--bg); color: var(--fg); font: 14px/1.5 system-ui, sans-serif; margin: 2rem; max-width: 1300px; }
h1 { font-size: 1.5rem; } h2 { font-size: 1.15rem; margin-top: 2rem; }
.muted { color: var(--muted); }
.scroll { overflow-x: auto; }
table { border-collapse: collapse; }
th, td { border-bottom: 1px solid var(--grid); padding: 0.3rem 0.6rem; text-align: left; white-space: nowrap; }
th[scope="row"] { font-weight: normal; }
.num { text-align: right; font-variant-numeric: tabular-nums; }
td.num { white-space: normal; } .part { white-space: nowrap; }
svg.chart { display: block; max-width: 100%; height: auto; font-size: 12px; }
svg text { fill: var(--fg); } svg .tick, svg .value { fill: var(--muted); }
svg .track { fill: var(--track); } svg .bar { fill: var(--accent); }
svg .grid { stroke: var(--grid); stroke-dasharray: 2 3; } svg .axis { stroke: var(--grid); }
svg .whisker { stroke: var(--muted); stroke-width: 1.5; } svg .box { fill: var(--box); stroke: var(--accent); }
svg .median { stroke: var(--fg); stroke-width: 2; }
.dot { fill-opacity: 0.85; } .dot.passed, .key.passed { fill: var(--ok); background: var(--ok); }
.dot.failed, .key.failed { fill: var(--bad); background: var(--bad); }
.dot.infra-failed, .key.infra-failed { fill: var(--warn); background: var(--warn); }
.key { display: inline-block; width: 0.7em; height: 0.7em; border-radius: 50%; margin: 0 0.3em 0 0.8em; }
`;
