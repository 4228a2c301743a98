import type { CodonStatus, EventData } from '../../core/protocol/index.ts';
import { lineageOf, progress } from '../../engine/what-next.ts';
import { type EngineState, latestRunId } from '../../execution/state/reducer.ts';
import { type ApprovalWait, approvalWaitText } from '../model/approval-wait.ts';
import { displayLine } from '../model/display-text.ts';
import { type UsageWait, usageLimitFailure, usageWaitText } from '../model/usage-wait.ts';
import { formatCodons, formatCost, type PlanRecord, type RunRow } from '../runs/index.ts';

/** Where a run stands, as the status tool says it (its structuredContent). */
export type RunStatus = {
  execution: string;
  /** The live server's address; absent when none holds the execution. */
  server: string | undefined;
  plan: string | undefined;
  /** The latest run, as `ribosome runs` shows it. */
  run: { id: string; status: RunRow['status'] } | undefined;
  done: number;
  total: number | undefined;
  /** The codon running now (or preparing). */
  current: string | undefined;
  /** What codon.next (and autostart) would start; absent when every codon is done. */
  next: string | undefined;
  /** The server is idle (between codons, or the plan has run): its latest server.idle. */
  idle: { reason: string; message: string; heldBy?: string } | undefined;
  /**
   * The run waits for an agent's usage limit to reset: the codon that starts again at `until` (ISO),
   * or at once on codon.next. Absent when no wait is in progress.
   */
  usageWait?: UsageWait;
  /**
   * A codon waits for a person's approval (docs/review.md#approval-gates): nothing starts until the
   * approve tool (approval.approve), a redo or a rollback ends the wait. Absent when none does.
   */
  approvalWait?: ApprovalWait;
  codons: Array<{ id: string; name: string; status: CodonStatus | 'pending'; cost: number; why?: string }>;
  /** What the latest run spent, and every run of the execution together (US dollars). */
  runCost: number;
  totalCost: number;
  costEstimated: boolean;
};

export type StatusInput = {
  execution: string;
  server: string | undefined;
  state: EngineState;
  plan: PlanRecord | undefined;
  latestRun: RunRow | undefined;
  /** The newest of the events that say whether the server idles (server.idle, codon.started, rollback.started). */
  lastTurn: { type: string; data: unknown } | undefined;
  /** The time a usage limit's reset is said against (whether its clock needs the day). */
  now?: number;
};

/**
 * Each codon's latest status in the current lineage (its attempt in the latest run, else how it last
 * ended in the runs this one grew from, else pending), the progress as the server counts it, and
 * whether the server idles. Pure.
 */
export function runStatus(input: StatusInput): RunStatus {
  const { state, plan } = input;
  const runId = latestRunId(state);
  const run = runId ? state.runs[runId] : undefined;
  const lineage = lineageOf(state, runId);
  const ended = new Map(lineage.endings.map((e) => [e.codonId, e.status]));
  const ids = plan ? plan.codons.map((c) => ({ id: c.id, name: c.name })) : codonsOf(run);
  const codons = ids.map(({ id, name }) => {
    const record = run?.codons[id];
    // A rollback to a codon's start leaves the record of the undone attempt in the run it left, not this one.
    const status: CodonStatus | 'pending' = record?.status ?? ended.get(id) ?? 'pending';
    // Why a codon of this run failed, for a model deciding what to do next (retry, roll back, fix);
    // a usage limit says when it resets (waiting for it may be all there is to do).
    const reason = status === 'failed' ? record?.failureReason : undefined;
    const limit = usageLimitFailure(reason, input.now ?? Date.now());
    const why = limit ? [limit, reason?.message].filter(Boolean).join(': ') : reason?.message;
    return { id, name, status, cost: record?.cost ?? 0, ...(why ? { why } : {}) };
  });
  const counted = plan ? progress(plan.codons, lineage) : undefined;
  const current = codons.find((c) => c.status === 'running' || c.status === 'preparing')?.id;
  const turn = input.lastTurn;
  const idleData = turn?.type === 'server.idle' ? (turn.data as EventData<'server.idle'>) : undefined;
  const serving = input.server !== undefined;
  return {
    execution: input.execution,
    server: input.server,
    plan: plan?.name,
    run: input.latestRun ? { id: input.latestRun.id, status: input.latestRun.status } : undefined,
    done: counted?.done ?? codons.filter((c) => c.status === 'completed' || c.status === 'skipped').length,
    total: plan?.codons.length,
    current,
    next: counted?.next,
    idle:
      serving && idleData && current === undefined
        ? {
            reason: idleData.reason,
            message: idleData.message,
            ...(idleData.heldBy ? { heldBy: idleData.heldBy } : {}),
          }
        : undefined,
    ...(input.latestRun?.usageWait ? { usageWait: input.latestRun.usageWait } : {}),
    ...(input.latestRun?.approvalWait ? { approvalWait: input.latestRun.approvalWait } : {}),
    codons,
    runCost: run?.cost ?? 0,
    totalCost: state.totalCost,
    costEstimated: state.totalCostEstimated === true,
  };
}

function codonsOf(run: EngineState['runs'][string] | undefined): Array<{ id: string; name: string }> {
  return (run?.order ?? []).map((id) => ({ id, name: run?.codons[id]?.codonName ?? id }));
}

/**
 * The status as a few lines a model reads at a glance. Names and ids are shown inert (display-text.ts).
 * `now`: what a usage-limit wait is counted down from. Pure.
 */
export function statusText(s: RunStatus, now = Date.now()): string {
  const lines = [
    `execution ${s.execution}`,
    s.server ? `server: running at ${s.server}` : 'server: not running (what is recorded is shown)',
  ];
  if (s.plan) lines.push(`plan ${s.plan}: ${formatCodons(s.done, s.total ?? null)} codons done`);
  if (s.run) lines.push(`run ${s.run.id}: ${s.run.status}`);
  if (s.current) lines.push(`running: ${s.current}`);
  if (s.usageWait)
    lines.push(
      `${usageWaitText(s.usageWait, now)}: then ${s.usageWait.codonId} starts again (codon.next starts it now)`,
    );
  if (s.approvalWait)
    lines.push(
      `${approvalWaitText(s.approvalWait)} since ${s.approvalWait.since}: the approve tool lets the run go on, redo_codon requests changes, rollback goes back`,
    );
  if (s.idle)
    lines.push(
      `idle (${s.idle.reason}${s.idle.heldBy ? `, held by ${s.idle.heldBy}` : ''}): ${s.idle.message}`,
    );
  if (s.next && !s.current && !s.usageWait && !s.approvalWait) lines.push(`next: ${s.next}`);
  lines.push(
    `cost: ${formatCost(s.runCost, s.costEstimated)} this run, ${formatCost(s.totalCost, s.costEstimated)} in all`,
  );
  lines.push('codons:');
  for (const c of s.codons)
    lines.push(
      `  ${c.id}  ${c.status}${c.cost > 0 ? `  ${formatCost(c.cost)}` : ''}${c.why ? `: ${c.why}` : ''}`,
    );
  return lines.map((l) => displayLine(l)).join('\n');
}
