import type {
  ApprovalWait,
  BudgetStatus,
  CodonExecution,
  EventInput,
  FileNode,
  UsageLimitWait,
} from '../core/protocol/index.ts';
import {
  type CodonRecord,
  codonOf,
  type EngineState,
  latestRunId,
  runOf,
} from '../execution/state/reducer.ts';
import { lineageEntries } from './checkpoint-list.ts';
import { ENDING_TYPES } from './what-next.ts';

/**
 * The codon executions of the current lineage, oldest first: how each codon last ended in the
 * checkpoints the run inherited (the record of the run that ended it), then the run's own codons,
 * which replace inherited ones. A resumed or rolled-back run so shows what is already done.
 */
export function lineageExecutions(state: EngineState): CodonRecord[] {
  const runId = latestRunId(state);
  const run = runId ? runOf(state, runId) : undefined;
  if (!run || !runId) return [];
  const inherited = new Map<string, CodonRecord>();
  for (const entry of lineageEntries(state, runId)) {
    const info = entry.info;
    if (!info || entry.runId === runId || !ENDING_TYPES.has(info.checkpointType)) continue;
    const record = codonOf(runOf(state, entry.runId), info.codonId);
    if (!record) continue;
    inherited.delete(info.codonId);
    // The run may have run the codon again after this checkpoint: the status is the checkpoint's.
    inherited.set(info.codonId, { ...record, status: info.status });
  }
  for (const id of run.order) inherited.delete(id);
  const own = run.order.map((id) => codonOf(run, id)).filter((c) => c !== undefined);
  return [...inherited.values(), ...own];
}

/** Builds a state.snapshot (spec 6.1) from the state. Pure. */
export function buildSnapshot(
  state: EngineState,
  options: {
    fileTree: FileNode[];
    isRollingBack: boolean;
    now: number;
    budgets?: BudgetStatus[] | undefined;
    /** The usage-limit wait in progress (docs/unattended.md#usage-limits). */
    usageLimitWait?: UsageLimitWait | undefined;
    /** The approval wait in progress (docs/review.md#approval-gates). */
    approvalWait?: ApprovalWait | undefined;
  },
): EventInput<'state.snapshot'> {
  const executions = lineageExecutions(state);
  const toExecution = ({
    codonIndex: _i,
    attempt: _a,
    agentSessionId: _s,
    agentCost: _ac,
    sentinelCost: _sc,
    agentCostPriced: _p,
    ...c
  }: CodonRecord): CodonExecution => c;
  const current = executions.find((c) => c.status === 'preparing' || c.status === 'running');
  const totalTime = executions.reduce((sum, c) => {
    if (c.duration !== undefined) return sum + c.duration;
    return c.startTime ? sum + Math.max(0, options.now - Date.parse(c.startTime)) : sum;
  }, 0);
  return {
    ...(current ? { currentCodon: toExecution(current) } : {}),
    completedCodons: executions.filter((c) => c !== current).map(toExecution),
    fileTree: options.fileTree,
    totalCost: state.totalCost,
    ...(state.totalCostEstimated ? { totalCostEstimated: true as const } : {}),
    totalTime,
    ...(options.usageLimitWait ? { usageLimitWait: options.usageLimitWait } : {}),
    ...(options.approvalWait ? { approvalWait: options.approvalWait } : {}),
    isRollingBack: options.isRollingBack,
    ...(options.budgets ? { budgets: options.budgets } : {}),
  };
}
