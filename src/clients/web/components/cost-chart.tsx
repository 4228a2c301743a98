import type React from 'react';
import { own } from '../../../core/protocol/own.ts';
import { ESTIMATE_LEGEND } from '../../../llm/estimated-cost.ts';
import { displayLine } from '../../model/display-text.ts';
import { formatCost, formatTokens } from '../../model/format.ts';
import type { CostSeries } from '../model/chart-series.ts';
import { type CostPoint, downsample, niceMax, stepPath } from '../model/chart-series.ts';

const W = 640;
const H = 180;

/** Cost and tokens over time, agent and sentinels apart: cumulative lines and a bar per codon. */
export function CostView({ series }: { series: CostSeries }): React.ReactElement {
  const points = downsample(series.points, 600);
  const first = points[0];
  const last = points.at(-1);
  const scale = {
    t0: first?.t ?? 0,
    t1: last?.t ?? 1,
    max: niceMax(Math.max(series.totals.agent, series.totals.sentinels)),
    width: W,
    height: H,
  };
  const tokenScale = { ...scale, max: niceMax(series.totals.input + series.totals.output) };
  const line = (value: (p: CostPoint) => number, s: typeof scale, cls: string) => (
    <path d={stepPath(points, value, s)} className={cls} fill="none" />
  );
  const codonMax = niceMax(
    Math.max(
      0,
      ...series.codonOrder.map(
        (id) => (series.perCodon[id]?.agent ?? 0) + (series.perCodon[id]?.sentinels ?? 0),
      ),
    ),
  );
  if (series.points.length === 0)
    return (
      <section className="cost" data-testid="view-cost">
        <div className="empty-state" data-testid="empty-cost">
          <b>Nothing spent yet</b>
          The cost and tokens of every agent call and sentinel show here, over time and per codon, once a
          codon runs.
        </div>
      </section>
    );
  return (
    <section className="cost" data-testid="view-cost">
      <h3>
        Cumulative cost: agent {formatCost(series.totals.agent, Object.keys(series.estimated).length > 0)},
        sentinels {formatCost(series.totals.sentinels)}
      </h3>
      <svg
        viewBox={`0 0 ${W} ${H + 20}`}
        className="chart"
        role="img"
        aria-label="cumulative cost"
        data-testid="chart-cost"
      >
        <line x1={0} y1={H} x2={W} y2={H} className="axis" />
        <text x={2} y={12} className="axis-label">
          {formatCost(scale.max)}
        </text>
        {line((p) => p.agent, scale, 'series-agent')}
        {line((p) => p.sentinels, scale, 'series-sentinels')}
        <text x={W - 150} y={H + 16} className="legend-agent">
          ■ agent
        </text>
        <text x={W - 80} y={H + 16} className="legend-sentinels">
          ■ sentinels
        </text>
      </svg>
      {series.totals.sentinels === 0 ? (
        <p className="hint" data-testid="no-sentinel-cost">
          No sentinel has spent anything yet (the plan may have none): a sentinel's cost shows in amber.
        </p>
      ) : null}
      {Object.keys(series.estimated).length > 0 ? (
        <p className="muted" data-testid="cost-legend">
          {ESTIMATE_LEGEND}
        </p>
      ) : null}
      <h3>
        Cumulative tokens: {formatTokens(series.totals.input)} in, {formatTokens(series.totals.output)} out
      </h3>
      <svg
        viewBox={`0 0 ${W} ${H + 20}`}
        className="chart"
        role="img"
        aria-label="cumulative tokens"
        data-testid="chart-tokens"
      >
        <line x1={0} y1={H} x2={W} y2={H} className="axis" />
        <text x={2} y={12} className="axis-label">
          {formatTokens(tokenScale.max)}
        </text>
        {line((p) => p.input + p.output, tokenScale, 'series-tokens')}
        {line((p) => p.output, tokenScale, 'series-output')}
        <text x={W - 150} y={H + 16} className="legend-tokens">
          ■ in + out
        </text>
        <text x={W - 70} y={H + 16} className="legend-output">
          ■ out
        </text>
      </svg>
      <h3>Per codon</h3>
      <svg
        viewBox={`0 0 ${W} ${series.codonOrder.length * 22 + 4}`}
        className="chart"
        role="img"
        aria-label="cost per codon"
        data-testid="chart-codons"
      >
        {series.codonOrder.map((id, i) => {
          const s = series.perCodon[id];
          const agent = ((s?.agent ?? 0) / codonMax) * (W - 260);
          const sent = ((s?.sentinels ?? 0) / codonMax) * (W - 260);
          return (
            <g key={id} transform={`translate(0 ${i * 22 + 2})`}>
              <text x={0} y={14} className="axis-label">
                {displayLine(id)}
              </text>
              <rect x={110} y={2} width={agent} height={16} className="bar-agent" />
              <rect x={110 + agent} y={2} width={sent} height={16} className="bar-sentinels" />
              <text x={116 + agent + sent} y={14} className="axis-label">
                {formatCost(s?.agent ?? 0, own(series.estimated, id))} + {formatCost(s?.sentinels ?? 0)} ·{' '}
                {formatTokens(s?.output ?? 0)} out
              </text>
            </g>
          );
        })}
      </svg>
    </section>
  );
}
