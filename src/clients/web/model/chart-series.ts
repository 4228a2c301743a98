import type { ServerEvent } from '../../../core/protocol/index.ts';
import { own } from '../../../core/protocol/own.ts';

/**
 * Cost and tokens over time, agent and sentinels apart: a cumulative point after every token.usage
 * and sentinel.output, and the totals per codon. token.usage counts up within an attempt; a new
 * attempt (codon.started) starts from zero, so the last attempt's figures are settled first.
 */

export type Spend = { agent: number; sentinels: number; input: number; output: number };
export type CostPoint = Spend & { t: number; codonId: string };
export type CostSeries = {
  points: readonly CostPoint[];
  perCodon: Readonly<Record<string, Spend>>;
  /** Plan order of the codons as they first spent. */
  codonOrder: readonly string[];
  /** The running attempt's figures per codon (token.usage), not yet settled. */
  attempt: Readonly<Record<string, Spend>>;
  totals: Spend;
  /** Codons whose agent's spend is, in part, Ribosome's estimate (token.usage costEstimated). */
  estimated: Readonly<Record<string, true>>;
};

export const ZERO_SPEND: Spend = { agent: 0, sentinels: 0, input: 0, output: 0 };
export const EMPTY_SERIES: CostSeries = {
  points: [],
  perCodon: {},
  codonOrder: [],
  attempt: {},
  totals: ZERO_SPEND,
  estimated: {},
};

const add = (a: Spend, b: Spend): Spend => ({
  agent: a.agent + b.agent,
  sentinels: a.sentinels + b.sentinels,
  input: a.input + b.input,
  output: a.output + b.output,
});
const sub = (a: Spend, b: Spend): Spend => ({
  agent: a.agent - b.agent,
  sentinels: a.sentinels - b.sentinels,
  input: a.input - b.input,
  output: a.output - b.output,
});

const SPENDS = new Set<ServerEvent['type']>(['codon.started', 'token.usage', 'sentinel.output']);

export function foldSeries(series: CostSeries, events: readonly ServerEvent[]): CostSeries {
  // Most batches carry no spending: the series (a point per token.usage) is not copied for them.
  if (!events.some((e) => SPENDS.has(e.type))) return series;
  const points = series.points.slice();
  const perCodon = { ...series.perCodon };
  const attempt = { ...series.attempt };
  const codonOrder = series.codonOrder.slice();
  let estimated = series.estimated;
  let totals = series.totals;
  const spend = (codonId: string, delta: Spend, t: number) => {
    if (!own(perCodon, codonId)) codonOrder.push(codonId);
    perCodon[codonId] = add(own(perCodon, codonId) ?? ZERO_SPEND, delta);
    totals = add(totals, delta);
    points.push({ ...totals, t, codonId });
  };
  for (const e of events) {
    const t = Date.parse(e.timestamp);
    if (e.type === 'codon.started') {
      delete attempt[e.data.codonId];
    } else if (e.type === 'token.usage') {
      const d = e.data;
      if (d.costEstimated && !own(estimated, d.codonId)) estimated = { ...estimated, [d.codonId]: true };
      const now: Spend = { agent: d.totalCost, sentinels: 0, input: d.inputTokens, output: d.outputTokens };
      const before = own(attempt, d.codonId) ?? ZERO_SPEND;
      attempt[d.codonId] = now;
      spend(d.codonId, sub(now, before), t);
    } else if (e.type === 'sentinel.output') {
      const d = e.data;
      spend(d.codonId, { agent: 0, sentinels: d.cost, input: d.tokens.input, output: d.tokens.output }, t);
    }
  }
  return { points, perCodon, codonOrder, attempt, totals, estimated };
}

/** At most `max` points, evenly spaced in the list, keeping the last (a chart needs no more). */
export function downsample<T>(points: readonly T[], max: number): T[] {
  if (points.length <= max) return points.slice();
  const out: T[] = [];
  const step = points.length / max;
  for (let i = 0; i < max - 1; i++) out.push(points[Math.floor(i * step)] as T);
  out.push(points[points.length - 1] as T);
  return out;
}

export type Scale = { t0: number; t1: number; max: number; width: number; height: number };

/** An SVG path of a step line through `value(point)` over time, in a width × height box. */
export function stepPath<T extends { t: number }>(
  points: readonly T[],
  value: (p: T) => number,
  s: Scale,
): string {
  if (points.length === 0) return '';
  const span = Math.max(1, s.t1 - s.t0);
  const x = (t: number) => ((t - s.t0) / span) * s.width;
  const y = (v: number) => s.height - (s.max > 0 ? (v / s.max) * s.height : 0);
  const r = (n: number) => Math.round(n * 10) / 10;
  let d = `M${r(x(s.t0))},${r(s.height)}`;
  let lastY = s.height;
  for (const p of points) {
    const px = r(x(p.t));
    d += ` L${px},${r(lastY)} L${px},${r(y(value(p)))}`;
    lastY = y(value(p));
  }
  return `${d} L${r(s.width)},${r(lastY)}`;
}

/** A "nice" axis maximum at or above `v`: 1, 2 or 5 times a power of ten. */
export function niceMax(v: number): number {
  if (v <= 0) return 1;
  const p = 10 ** Math.floor(Math.log10(v));
  for (const m of [1, 2, 5, 10]) if (m * p >= v) return m * p;
  return 10 * p;
}
