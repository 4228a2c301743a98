import { isDone, lineageOf, progress } from '../../engine/what-next.ts';
import { runBranchName } from '../../execution/checkpoints/index.ts';
import type { EngineState, RunState } from '../../execution/state/reducer.ts';
import type { ApprovalWait } from '../model/approval-wait.ts';
import type { UsageWait } from '../model/usage-wait.ts';
import type { PlanRecord } from './plan-record.ts';

/**
 * One run of an execution as `ribosome runs` shows it. `status` says what happened: `running`;
 * `crashed` (still recorded as running while no server holds the execution; the next start records it
 * so); `rolled-back` (a rollback left it: a client's, or a sentinel's rollback or redo; the next run
 * began from it); `completed` (it ended with every codon of the plan done or passed over); else, ended
 * with codons left, `failed` (a codon's latest ending failed), `stopped` (only stopped ones: forceStop,
 * a sentinel's halt) or `ended` (none: the server stopped between codons). `total` is null when the
 * execution has no plan record (an older version made it).
 */
export type RunRow = {
  id: string;
  status: 'running' | 'crashed' | 'rolled-back' | 'completed' | 'failed' | 'stopped' | 'ended';
  /** Why the run began: a server start, a rollback, or the recovery of a crashed run. */
  reason: RunState['reason'];
  /** Codons done in the run's lineage (those of the runs it grew from included), as the server counts them. */
  done: number;
  total: number | null;
  /** Codons of the lineage whose latest ending is failed or stopped. */
  failed: string[];
  /** Those of `failed` that were stopped (codon.forceStop, a sentinel's halt, rollback or redo). */
  stopped: string[];
  /** What this run spent (agents and sentinels), US dollars. */
  cost: number;
  /** Part of `cost` is Ribosome's estimate: an agent that reports tokens but no cost (Codex, Gemini CLI). */
  costEstimated: boolean;
  startedAt: string;
  endedAt: string | null;
  /** To its end, else to now (a running run) or to its last journaled event (a crashed one). */
  durationMs: number;
  /** The shadow repository's branch of the run (`run/<id>`, encoded). */
  branch: string | null;
  /** A running run waiting for a usage limit to reset: which codon starts again, and when. */
  usageWait?: UsageWait;
  /** The latest run, when the execution waits for a person to approve a codon (docs/review.md#approval-gates). */
  approvalWait?: ApprovalWait;
};

export type RunContext = {
  plan: PlanRecord | undefined;
  /** Whether a live server holds the execution now. */
  serverAlive: boolean;
  /** The newest journaled event of each run, by run id (ISO time). */
  lastEventAt: ReadonlyMap<string, string>;
  now: Date;
  /** The usage-limit wait each run is in, by run id (read-execution.ts usageWaitOf). */
  usageWaits?: ReadonlyMap<string, UsageWait>;
  /** The execution's approval wait (read-execution.ts approvalWaitOf): said on its latest run. */
  approvalWait?: ApprovalWait | undefined;
};

/** The runs in the order they started. Pure. */
export function runRows(state: EngineState, context: RunContext): RunRow[] {
  return state.runOrder.flatMap((id, i) => {
    const run = state.runs[id];
    // A rollback ends the current run and begins the next one from it, in one step.
    const left = state.runs[state.runOrder[i + 1] ?? '']?.reason === 'rollback';
    const latest = i === state.runOrder.length - 1;
    return run ? [runRow(state, run, latest ? context : { ...context, approvalWait: undefined }, left)] : [];
  });
}

function runRow(state: EngineState, run: RunState, context: RunContext, rolledBack: boolean): RunRow {
  const lineage = lineageOf(state, run.runId);
  const counted = context.plan
    ? progress(context.plan.codons, lineage)
    : { done: new Set(lineage.endings.map((e) => e.codonId).filter((id) => isDone(lineage, id))).size };
  const lastStatus = new Map(lineage.endings.map((e) => [e.codonId, e.status]));
  const failed = [...lastStatus].filter(([, s]) => s === 'failed' || s === 'stopped').map(([id]) => id);
  const stopped = failed.filter((id) => lastStatus.get(id) === 'stopped');
  const lost = run.status === 'running' && !context.serverAlive;
  const endedAt = run.endedAt ?? (lost ? (context.lastEventAt.get(run.runId) ?? run.startedAt) : null);
  const end = endedAt ? Date.parse(endedAt) : context.now.getTime();
  const named = runBranchName(run.runId);
  const status = lost
    ? 'crashed'
    : rolledBack && run.status === 'completed'
      ? 'rolled-back'
      : endedAs(run.status, counted.done, context.plan?.codons.length, failed, stopped);
  const usageWait = status === 'running' ? context.usageWaits?.get(run.runId) : undefined;
  return {
    id: run.runId,
    status,
    reason: run.reason,
    done: counted.done,
    total: context.plan ? context.plan.codons.length : null,
    failed,
    stopped,
    cost: run.cost,
    costEstimated: run.costEstimated === true,
    startedAt: run.startedAt,
    endedAt,
    durationMs: Math.max(0, end - Date.parse(run.startedAt)),
    branch: run.branch ?? (named.ok ? named.value : null),
    ...(usageWait ? { usageWait } : {}),
    ...(context.approvalWait && status !== 'rolled-back' ? { approvalWait: context.approvalWait } : {}),
  };
}

/** An ended run named by what happened (the journal records RunCompleted or RunFailed). */
function endedAs(
  recorded: RunState['status'],
  done: number,
  total: number | undefined,
  failed: readonly string[],
  stopped: readonly string[],
): RunRow['status'] {
  if (recorded === 'running' || recorded === 'crashed') return recorded;
  const allDone = total === undefined ? recorded === 'completed' : done >= total;
  if (allDone && recorded === 'completed') return 'completed';
  if (failed.length > stopped.length) return 'failed';
  if (stopped.length > 0) return 'stopped';
  return allDone ? 'completed' : 'ended';
}
