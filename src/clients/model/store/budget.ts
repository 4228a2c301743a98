import type { BudgetStatus } from '../../../core/protocol/index.ts';
import { markEstimate } from '../../../llm/estimated-cost.ts';
import { formatClock, formatTokens } from '../format.ts';
import type { Tone } from '../tone.ts';

/** The last state.snapshot's budgets, with the figures they were taken against. */
export type BudgetView = {
  statuses: BudgetStatus[];
  /** When the snapshot was taken (its event timestamp). */
  at: string;
  /** The run's total cost and output tokens at that moment: what came since is added to ticking scopes. */
  totalCost: number;
  outputTokens: number;
};

export type BudgetLine = { text: string; tone: Tone | undefined };

const usd = (n: number) => `$${n.toFixed(2)}`;

/**
 * The header's budget: the plan's spend against its limits (or the first scope's when the plan has
 * none), live between snapshots (cost, tokens and the clock of a scope that ticks), then any other
 * scope that reached a warning or was exceeded. Undefined when no budget is set.
 */
export function budgetLine(
  run: { budgets?: BudgetView | undefined; totalCost: number },
  outputTokens: number,
  now: number,
): BudgetLine | undefined {
  const view = run.budgets;
  const first = view?.statuses.find((s) => s.scope === 'plan') ?? view?.statuses[0];
  if (!view || !first) return undefined;
  const since = Math.max(0, now - Date.parse(view.at));
  const live = (s: BudgetStatus) =>
    s.ticking
      ? {
          cost: s.spent.costUsd + Math.max(0, run.totalCost - view.totalCost),
          ms: s.spent.durationMs + (Number.isFinite(since) ? since : 0),
          tokens: s.spent.outputTokens + Math.max(0, outputTokens - view.outputTokens),
        }
      : { cost: s.spent.costUsd, ms: s.spent.durationMs, tokens: s.spent.outputTokens };
  const spent = live(first);
  const { maxCostUsd, maxDurationMs, maxOutputTokens } = first.limits;
  const parts = [
    maxCostUsd === undefined
      ? ''
      : `${markEstimate(usd(spent.cost), first.spent.costEstimated)} / ${usd(maxCostUsd)}`,
    maxDurationMs === undefined ? '' : `${formatClock(spent.ms)} / ${formatClock(maxDurationMs)}`,
    maxOutputTokens === undefined
      ? ''
      : `${formatTokens(spent.tokens)} / ${formatTokens(maxOutputTokens)} tok`,
  ].filter(Boolean);
  const label = first.scope === 'plan' ? 'budget' : `budget ${first.scope} ${first.id}`;
  const others = view.statuses
    .filter((s) => s !== first && s.state !== 'ok')
    .map((s) => `${s.scope} ${s.id} ${s.state}`);
  const worst = view.statuses.some((s) => s.state === 'exceeded')
    ? 'exceeded'
    : view.statuses.some((s) => s.state === 'warning')
      ? 'warning'
      : 'ok';
  const mark = first.state === 'exceeded' ? ' EXCEEDED' : first.state === 'warning' ? ' ⚠' : '';
  const text = `${label} ${parts.join(' · ')}${mark}${others.length > 0 ? ` (${others.join(', ')})` : ''}`;
  return { text, tone: worst === 'exceeded' ? 'bad' : worst === 'warning' ? 'warn' : undefined };
}
