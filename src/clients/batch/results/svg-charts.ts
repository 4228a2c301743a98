import type { Group, JobPoint, Spread } from './compare.ts';
import { html } from './escape.ts';
import { percent } from './report-cells.ts';

/**
 * The report's charts as inline SVG, drawn here (no library, nothing loaded): a bar per group of its
 * success rate, and a strip per group of each job's cost or time (a dot per job over its box,
 * p25–p75, or its min–max, and a mark at the median). Colours come from the page's CSS classes, so
 * the charts follow its light or dark scheme. Pure.
 */

const LABEL_WIDTH = 220;
const PLOT_WIDTH = 480;
const VALUE_WIDTH = 110;
const ROW = 26;
const TOP = 8;
const AXIS = 24;
const LABEL_MAX = 34;

const width = LABEL_WIDTH + PLOT_WIDTH + VALUE_WIDTH;
const fixed = (n: number) => (Math.round(n * 10) / 10).toString();

/** A group's name on the left, cut to fit, whole in its tooltip. */
function label(g: Group, y: number): string {
  const text = g.label.length > LABEL_MAX ? `${g.label.slice(0, LABEL_MAX - 1)}…` : g.label;
  return `<text class="label" x="${LABEL_WIDTH - 8}" y="${fixed(y)}" text-anchor="end" dominant-baseline="middle"><title>${html(g.label)}</title>${html(text)}</text>`;
}

function svg(title: string, height: number, body: string[]): string {
  return [
    `<svg class="chart" role="img" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}">`,
    `<title>${html(title)}</title>`,
    ...body,
    '</svg>',
  ].join('\n');
}

export function successChart(groups: readonly Group[]): string {
  const height = TOP + groups.length * ROW + 4;
  const body = groups.flatMap((g, i) => {
    const y = TOP + i * ROW;
    const middle = y + ROW / 2;
    const verdicts = g.passed + g.failed;
    const bar =
      g.successRate === null
        ? []
        : [
            `<rect class="track" x="${LABEL_WIDTH}" y="${fixed(y + 5)}" width="${PLOT_WIDTH}" height="${ROW - 10}"/>`,
            `<rect class="bar" x="${LABEL_WIDTH}" y="${fixed(y + 5)}" width="${fixed(g.successRate * PLOT_WIDTH)}" height="${ROW - 10}"/>`,
          ];
    const value =
      g.successRate === null ? 'no verdict' : `${percent(g.successRate)} (${g.passed}/${verdicts})`;
    return [
      label(g, middle),
      ...bar,
      `<text class="value" x="${LABEL_WIDTH + PLOT_WIDTH + 8}" y="${fixed(middle)}" dominant-baseline="middle">${html(value)}</text>`,
    ];
  });
  return svg('Success rate per group', height, body);
}

export type StripOptions = {
  title: string;
  value: (p: JobPoint) => number | undefined;
  spread: (g: Group) => Spread | undefined;
  format: (n: number) => string;
};

export function stripChart(groups: readonly Group[], o: StripOptions): string {
  const values = groups.flatMap((g) =>
    g.points.flatMap((p) => {
      const value = o.value(p);
      return value === undefined ? [] : [value];
    }),
  );
  const max = Math.max(0, ...values);
  const x = (n: number) => LABEL_WIDTH + (max > 0 ? (n / max) * PLOT_WIDTH : 0);
  const height = TOP + groups.length * ROW + AXIS;
  const body = groups.flatMap((g, i) => {
    const y = TOP + i * ROW;
    const middle = y + ROW / 2;
    const s = o.spread(g);
    const shape = s ? box(s, x, y) : [];
    const dots = g.points.flatMap((p, k) => {
      const v = o.value(p);
      if (v === undefined) return [];
      // Dots of equal value side by side: a small vertical offset by their order.
      const dy = ((k % 5) - 2) * 2.5;
      return [
        `<circle class="dot ${p.state}" cx="${fixed(x(v))}" cy="${fixed(middle + dy)}" r="3.5"><title>${html(`${p.id}: ${o.format(v)} (${p.state})`)}</title></circle>`,
      ];
    });
    const value = s ? `median ${o.format(s.median)}` : 'no jobs ended';
    return [
      label(g, middle),
      `<line class="grid" x1="${LABEL_WIDTH}" x2="${LABEL_WIDTH + PLOT_WIDTH}" y1="${fixed(middle)}" y2="${fixed(middle)}"/>`,
      ...shape,
      ...dots,
      `<text class="value" x="${LABEL_WIDTH + PLOT_WIDTH + 8}" y="${fixed(middle)}" dominant-baseline="middle">${html(value)}</text>`,
    ];
  });
  const axisY = TOP + groups.length * ROW + 4;
  const ticks = [0, max / 2, max].map(
    (n, k) =>
      `<text class="tick" x="${fixed(x(n))}" y="${axisY + 12}" text-anchor="${['start', 'middle', 'end'][k]}">${html(o.format(n))}</text>`,
  );
  const axis = `<line class="axis" x1="${LABEL_WIDTH}" x2="${LABEL_WIDTH + PLOT_WIDTH}" y1="${axisY}" y2="${axisY}"/>`;
  return svg(o.title, height, [...body, axis, ...ticks]);
}

/** The box from p25 to p75 (else the whisker from min to max) and the median's mark. */
function box(s: Spread, x: (n: number) => number, y: number): string[] {
  const whisker = `<line class="whisker" x1="${fixed(x(s.min))}" x2="${fixed(x(s.max))}" y1="${fixed(y + ROW / 2)}" y2="${fixed(y + ROW / 2)}"/>`;
  const quartiles =
    s.p25 !== undefined && s.p75 !== undefined
      ? [
          `<rect class="box" x="${fixed(x(s.p25))}" y="${fixed(y + 4)}" width="${fixed(Math.max(1, x(s.p75) - x(s.p25)))}" height="${ROW - 8}"/>`,
        ]
      : [];
  const median = `<line class="median" x1="${fixed(x(s.median))}" x2="${fixed(x(s.median))}" y1="${fixed(y + 3)}" y2="${fixed(y + ROW - 3)}"/>`;
  return [whisker, ...quartiles, median];
}
