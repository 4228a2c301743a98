/** What the run has spent: tokens summed over codons and attempts, the current run's cost and all runs'. */

import { formatCost } from '../format.ts';
import type { RunState, ZERO_TOKENS } from './run-state.ts';

export function addTokens(a: typeof ZERO_TOKENS, b: typeof ZERO_TOKENS): typeof ZERO_TOKENS {
  return {
    input: a.input + b.input,
    output: a.output + b.output,
    cacheCreation: a.cacheCreation + b.cacheCreation,
    cacheRead: a.cacheRead + b.cacheRead,
  };
}

export function totalTokens(run: RunState['run']): typeof ZERO_TOKENS {
  return Object.values(run.codonTokens).reduce(addTokens, run.settledTokens);
}

/** The current run's own cost (0 is a value: a run just rolled back to has spent nothing yet). */
export const currentRunCost = (run: Pick<RunState['run'], 'runCount' | 'runCost' | 'totalCost'>): number =>
  run.runCount > 1 ? run.runCost : run.totalCost;

/** Whether part of currentRunCost is an estimate. */
export const currentRunCostEstimated = (
  run: Pick<RunState['run'], 'runCount' | 'runCostEstimated' | 'totalCostEstimated'>,
): boolean => (run.runCount > 1 ? run.runCostEstimated : run.totalCostEstimated) === true;

/** The run's cost (and all runs' after a rollback), `~` marking a total that is partly an estimate. */
export const describeCost = (run: RunState['run']) =>
  run.runCount > 1
    ? `${formatCost(currentRunCost(run), currentRunCostEstimated(run))} (all runs ${formatCost(run.totalCost, run.totalCostEstimated)})`
    : formatCost(run.totalCost, run.totalCostEstimated);
