import type { BudgetLimits, BudgetScopeKind } from '../../core/protocol/index.ts';
import { markEstimate } from '../../llm/estimated-cost.ts';

/**
 * Budget limits as values: their names, how a spend against one reads, and how the run's budget is
 * put together from the plan, the config file and the command line. Pure.
 */

export type LimitName = keyof BudgetLimits;
export const LIMIT_NAMES: readonly LimitName[] = ['maxCostUsd', 'maxDurationMs', 'maxOutputTokens'];

/**
 * A limit passed: which scope, which limit, the limit and the spend; `estimated` when part of a cost
 * spent is Ribosome's estimate (an agent that reports no cost).
 */
export type Breach = {
  scope: BudgetScopeKind;
  id: string;
  limit: LimitName;
  max: number;
  spent: number;
  estimated?: boolean;
  /**
   * Set when a request was refused before it went out: the least it would have cost, more than the
   * limit left (`spent` then counts the spend held for requests not yet reported).
   */
  next?: number;
};

/** True when the limits set at least one limit. */
export function hasLimits(limits: BudgetLimits | undefined): limits is BudgetLimits {
  return limits !== undefined && LIMIT_NAMES.some((name) => limits[name] !== undefined);
}

/** True when a run with `run` as its budget and `plan`'s codons and loops sets a cost limit anywhere. */
export function hasCostLimit(
  run: BudgetLimits | undefined,
  codons: ReadonlyArray<{
    budget?: BudgetLimits | undefined;
    loop?: { budget?: BudgetLimits | undefined } | undefined;
  }>,
): boolean {
  return (
    run?.maxCostUsd !== undefined ||
    codons.some((c) => c.budget?.maxCostUsd !== undefined || c.loop?.budget?.maxCostUsd !== undefined)
  );
}

/**
 * The run's budget: the plan's `budget`, with the config file's `budget` over it and the command
 * line (`--max-cost`, `--max-time`) over that, limit by limit. Undefined when nothing is set.
 */
export function runBudget(...layers: Array<BudgetLimits | undefined>): BudgetLimits | undefined {
  const merged: BudgetLimits = {};
  for (const layer of layers) {
    for (const name of LIMIT_NAMES) {
      const value = layer?.[name];
      if (value !== undefined) merged[name] = value;
    }
  }
  return hasLimits(merged) ? merged : undefined;
}

/** "plan", "loop fixes", "codon build#2": how messages name a scope. */
export function scopeName(b: Pick<Breach, 'scope' | 'id'>): string {
  return b.scope === 'plan' ? 'plan' : `${b.scope} ${b.id}`;
}

/** A limit as it was most likely written: whole cents with two decimals, anything finer with four. */
function limitAmount(limit: LimitName, max: number): string {
  if (limit !== 'maxCostUsd') return String(Math.round(max));
  return Math.abs(max * 100 - Math.round(max * 100)) < 1e-9 ? max.toFixed(2) : max.toFixed(4);
}

/**
 * A spend with four decimals, as costs read elsewhere ($0.2048 over a 0.20 limit must not read 0.20),
 * and more when four would make a spend over its limit read as the limit.
 */
function spentAmount(limit: LimitName, spent: number, max: number): string {
  if (limit !== 'maxCostUsd') return String(Math.round(spent));
  for (let digits = 4; digits < 10; digits++) {
    const text = spent.toFixed(digits);
    if (spent <= max || Number(text) > max) return text;
  }
  return spent.toFixed(10);
}

/** "maxCostUsd 1.00, spent 1.0412"; "spent ~1.0412 (estimated)" when part of it is an estimate. */
export function spendText(b: Breach): string {
  const spent = spentAmount(b.limit, b.spent, b.max);
  const shown = b.limit === 'maxCostUsd' && b.estimated ? `${markEstimate(spent, true)} (estimated)` : spent;
  return `${b.limit} ${limitAmount(b.limit, b.max)}, spent ${shown}`;
}

/**
 * "plan budget exceeded: maxCostUsd 1.00, spent 1.0412" (the failureReason message of a budget stop);
 * for a request refused before it went out "plan budget exhausted: maxCostUsd 0.10, spent 0.0912, the
 * next request could cost 0.0231".
 */
export function exceededMessage(b: Breach): string {
  if (b.next === undefined) return `${scopeName(b)} budget exceeded: ${spendText(b)}`;
  // A limit under one request's worst case refuses every request: say so, and what to do.
  const whole =
    b.next > b.max
      ? ', more than the whole limit (its input is bounded at one token a byte): raise the limit, or --no-proxy to count spend as it is reported'
      : '';
  return `${scopeName(b)} budget exhausted: ${spendText(b)}, the next request could cost ${b.next.toFixed(4)}${whole}`;
}

/** "plan budget at 84 %: maxCostUsd 1.00, spent 0.8400". */
export function warningMessage(b: Breach): string {
  return `${scopeName(b)} budget at ${Math.floor((b.spent / b.max) * 100)} %: ${spendText(b)}`;
}

/** Why a start is refused while a budget is exhausted, and how to raise it. */
export function refusalMessage(b: Breach, codonId: string): string {
  const raise =
    b.scope === 'plan'
      ? `restart the server with a higher ${b.limit === 'maxDurationMs' ? '--max-time' : b.limit === 'maxCostUsd' ? '--max-cost' : 'budget.maxOutputTokens in the plan'} (budgets count from the server's start)`
      : `raise the ${b.scope}'s budget.${b.limit} in the plan and restart the server (budgets count from the server's start)`;
  return `not starting ${codonId}: the ${exceededMessage(b)}; ${raise}`;
}

const UNIT_MS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 };

/**
 * A duration for `--max-time`: `90s`, `30m`, `2h`, `1500ms`, or plain milliseconds (`90000`).
 * Undefined when it is not one (or not a whole, positive number of milliseconds in range).
 */
export function parseDuration(text: string, max = 2_147_483_647): number | undefined {
  const match = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h)?\s*$/.exec(text);
  if (!match?.[1]) return undefined;
  const ms = Math.round(Number(match[1]) * (UNIT_MS[match[2] ?? 'ms'] ?? 1));
  return Number.isFinite(ms) && ms >= 1 && ms <= max ? ms : undefined;
}

/** A dollar amount for `--max-cost`: `1`, `0.5`, `$2.50`. Undefined unless positive and finite. */
export function parseCost(text: string): number | undefined {
  const match = /^\s*\$?(\d+(?:\.\d+)?|\.\d+)\s*$/.exec(text);
  if (!match?.[1]) return undefined;
  const usd = Number(match[1]);
  return Number.isFinite(usd) && usd > 0 ? usd : undefined;
}
