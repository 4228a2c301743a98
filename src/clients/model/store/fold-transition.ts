import type { ServerEventOf } from '../../../core/protocol/index.ts';
import { own } from '../../../core/protocol/own.ts';
import { endWaitingCalls } from './activity.ts';
import { endApprovalWait } from './approval-wait.ts';
import { codonStarted, failActiveCodons, isActiveStatus, setCodonCost } from './codons.ts';
import type { RunState } from './run-state.ts';
import { addTokens } from './totals.ts';
import { readTransition } from './transition-data.ts';
import { endUsageWait } from './usage-wait.ts';

/** A state.transition folded in: the run's totals it carries, then what its transition changes. */
export function foldTransition(state: RunState, e: ServerEventOf<'state.transition'>): RunState {
  const { resultingState } = e.data;
  const totals: RunState = {
    ...state,
    run: {
      ...state.run,
      ...(resultingState.currentRunId ? { runId: resultingState.currentRunId } : {}),
      runCount: resultingState.runCount,
      totalCost: resultingState.totalCost,
      runCost: resultingState.currentRunCost,
      totalCostEstimated: resultingState.totalCostEstimated === true,
      runCostEstimated: resultingState.currentRunCostEstimated === true,
    },
  };
  const t = readTransition(e.data);
  if (!t) return totals;
  const unheld = ENDS_USAGE_WAIT.has(t.type) ? endUsageWait(totals) : totals;
  // An approval wait outlives its run's end (a server stopped during it waits again when started).
  const withTotals = t.type === 'RunStarted' || t.type === 'CodonStarted' ? endApprovalWait(unheld) : unheld;
  const run = withTotals.run;
  switch (t.type) {
    case 'RunStarted': {
      // An idle event spoke of the run before (what it had left to start): a new run has its own say.
      const { endedAt: _e, branch: _b, idle: _i, ...rest } = run;
      return {
        ...withTotals,
        run: {
          ...rest,
          runId: t.data.runId,
          runStatus: 'running',
          startedAt: t.data.startedAt,
          ...(t.data.branch ? { branch: t.data.branch } : {}),
        },
        checkpoints: { created: [] },
        // The run a recovery begins comes before its rollback.completed: that rollback was the recovery.
        ...(t.data.reason === 'recovery' && state.rollback.phase === 'running'
          ? { rollback: { ...state.rollback, cause: 'recovery' as const } }
          : {}),
      };
    }
    case 'RunCompleted':
    case 'RunFailed':
      return t.data.runId === run.runId
        ? {
            ...withTotals,
            run: {
              ...run,
              runStatus: t.type === 'RunCompleted' ? 'completed' : 'failed',
              endedAt: t.data.endedAt,
            },
          }
        : withTotals;
    case 'RunCrashed':
      return failActiveCodons(
        endActiveCodonsCalls(
          t.data.runId === run.runId
            ? { ...withTotals, run: { ...run, runStatus: 'crashed', endedAt: t.data.detectedAt } }
            : withTotals,
        ),
        'the server stopped while it ran',
      );
    case 'CodonStarted': {
      // A new attempt: its tokens start from zero, the old attempt's are kept in the total.
      const previous = own(run.codonTokens, t.data.codonId);
      const { [t.data.codonId]: _old, ...codonTokens } = run.codonTokens;
      const settled = previous ? addTokens(run.settledTokens, previous) : run.settledTokens;
      return codonStarted(
        { ...withTotals, run: { ...run, codonTokens, settledTokens: settled } },
        t.data,
        'preparing',
        true,
      );
    }
    case 'CodonTransitioned': {
      const d = t.data;
      const row = own(withTotals.codons, d.codonId);
      const next = {
        ...withTotals,
        codons: row
          ? {
              ...withTotals.codons,
              [d.codonId]: {
                ...row,
                status: d.to,
                ...(d.duration === undefined ? {} : { duration: d.duration }),
                ...(d.failureReason ? { failureReason: d.failureReason } : {}),
              },
            }
          : withTotals.codons,
      };
      return next;
    }
    case 'CostsIncremented':
      return setCodonCost(withTotals, t.data.codonId, (row) => row.cost + t.data.amount);
    case 'CostsUpdated':
    case 'CodonFinalCostSet':
      return setCodonCost(withTotals, t.data.codonId, () => t.data.cost);
    case 'CheckpointCreated': {
      if (t.data.runId !== run.runId) return withTotals;
      const created = [...withTotals.checkpoints.created, t.data.checkpoint];
      return { ...withTotals, checkpoints: { ...withTotals.checkpoints, created } };
    }
  }
}

/** A codon starting, or the run ending or beginning anew, ends a usage-limit wait. */
const ENDS_USAGE_WAIT: ReadonlySet<string> = new Set([
  'RunStarted',
  'RunCompleted',
  'RunFailed',
  'RunCrashed',
  'CodonStarted',
]);

/** The waiting calls of the codons a crash interrupted end with them (their codon.completed may come later). */
function endActiveCodonsCalls(state: RunState): RunState {
  let next = state;
  for (const row of Object.values(state.codons))
    if (isActiveStatus(row.status)) next = endWaitingCalls(next, row.codonId);
  return next;
}
