import { type CheckpointInfo, type CodonExecution, own } from '../../core/protocol/index.ts';
import { canTransition } from './codon-status.ts';
import type { Transition } from './transitions.ts';

/** A codon's latest attempt in a run: the protocol's CodonExecution plus what the engine needs. */
export type CodonRecord = CodonExecution & {
  codonIndex: number;
  attempt: number;
  agentSessionId?: string;
  /** The agent's part of `cost`; the rest is the sentinels'. */
  agentCost: number;
  sentinelCost: number;
  /**
   * The agent reports tokens but no cost (CodonStarted said so): its part is Ribosome's estimate, and
   * `costEstimated` (of the codon, its run and the total) is set once that part is more than nothing.
   */
  agentCostPriced?: true;
};

export type RunStatus = 'running' | 'completed' | 'failed' | 'crashed';

export type RunState = {
  runId: string;
  status: RunStatus;
  reason: 'start' | 'rollback' | 'recovery';
  startedAt: string;
  endedAt?: string;
  branch?: string;
  fromRunId?: string;
  fromCheckpoint?: string;
  initialCheckpoint?: string;
  /** The run began at the start of this codon (a rollback to its start, or a recovery). */
  startOf?: string;
  /** The codon that was preparing or running when this run's server stopped (a crash). */
  interruptedCodonId?: string;
  /** Codon executions of this run, by codon id, latest attempt. */
  codons: Record<string, CodonRecord>;
  /** Codon ids in the order they (last) started. */
  order: string[];
  cost: number;
  /** Part of `cost` is an estimate (a codon's agent reports no cost: see CodonRecord.agentCostPriced). */
  costEstimated?: true;
  checkpoints: CheckpointInfo[];
};

export type EngineState = {
  runs: Record<string, RunState>;
  runOrder: string[];
  currentRunId: string | null;
  totalCost: number;
  /** Part of `totalCost` is an estimate. */
  totalCostEstimated?: true;
};

/**
 * The run the execution is at: the current one, else the latest (between a run's end and the next
 * one's start, e.g. while a server that found its plan done has begun none).
 */
export const latestRunId = (state: EngineState): string | null =>
  state.currentRunId ?? state.runOrder.at(-1) ?? null;

export const initialState = (): EngineState => ({ runs: {}, runOrder: [], currentRunId: null, totalCost: 0 });

export class TransitionError extends Error {
  readonly code = 'INVALID_TRANSITION';
}

/** Pure fold of one transition. Throws TransitionError for a transition the state cannot take. */
export function reduce(state: EngineState, t: Transition): EngineState {
  switch (t.type) {
    case 'RunStarted': {
      const { runId, startedAt, reason, fromRunId, fromCheckpoint, branch, startOf } = t.data;
      if (own(state.runs, runId)) throw new TransitionError(`run ${runId} already exists`);
      const run: RunState = {
        runId,
        status: 'running',
        reason,
        startedAt,
        codons: {},
        order: [],
        cost: 0,
        checkpoints: [],
        ...(branch ? { branch } : {}),
        ...(fromRunId ? { fromRunId } : {}),
        ...(fromCheckpoint ? { fromCheckpoint } : {}),
        ...(startOf ? { startOf } : {}),
      };
      return {
        ...state,
        runs: { ...state.runs, [runId]: run },
        runOrder: [...state.runOrder, runId],
        currentRunId: runId,
      };
    }
    case 'RunCompleted':
      return endRun(state, t.data.runId, 'completed', t.data.endedAt);
    case 'RunFailed':
      return endRun(state, t.data.runId, 'failed', t.data.endedAt);
    case 'RunCrashed': {
      const run = requireRun(state, t.data.runId);
      const codons = { ...run.codons };
      for (const [id, codon] of Object.entries(codons)) {
        if (codon.status === 'preparing' || codon.status === 'running') {
          codons[id] = {
            ...codon,
            status: 'failed',
            endTime: t.data.detectedAt,
            failureReason: {
              type: 'unknown',
              retriable: false,
              message: 'the server stopped while this codon ran',
            },
          };
        }
      }
      const ended = {
        ...run,
        codons,
        status: 'crashed' as const,
        endedAt: t.data.detectedAt,
        ...(t.data.codonId ? { interruptedCodonId: t.data.codonId } : {}),
      };
      return withRun(state, ended, state.currentRunId === run.runId ? null : state.currentRunId);
    }
    case 'CodonStarted': {
      const run = requireRun(state, t.data.runId);
      const previous = own(run.codons, t.data.codonId);
      if (previous && !canTransition(previous.status, 'preparing')) {
        throw new TransitionError(`codon ${t.data.codonId} is ${previous.status}; it cannot start again yet`);
      }
      const codon = {
        codonId: t.data.codonId,
        codonName: t.data.codonName,
        codonIndex: t.data.codonIndex,
        status: 'preparing' as const,
        runId: run.runId,
        sessionId: t.data.sessionId,
        startTime: t.data.startTime,
        cost: 0,
        agentCost: 0,
        sentinelCost: 0,
        assistantMessageCount: 0,
        attempt: (previous?.attempt ?? 0) + 1,
        ...(t.data.costEstimated ? { agentCostPriced: true as const } : {}),
      };
      return withRun(state, {
        ...run,
        codons: { ...run.codons, [codon.codonId]: codon },
        order: [...run.order.filter((id) => id !== codon.codonId), codon.codonId],
      });
    }
    case 'CodonTransitioned': {
      const run = requireRun(state, t.data.runId);
      const codon = requireCodon(run, t.data.codonId);
      if (codon.status !== t.data.from || !canTransition(t.data.from, t.data.to)) {
        throw new TransitionError(`codon ${codon.codonId} cannot go from ${codon.status} to ${t.data.to}`);
      }
      const updated = {
        ...codon,
        status: t.data.to,
        ...(t.data.exitStatus ? { exitStatus: t.data.exitStatus } : {}),
        ...(t.data.failureReason ? { failureReason: t.data.failureReason } : {}),
        ...(t.data.duration !== undefined ? { duration: t.data.duration, endTime: t.data.at } : {}),
        ...(t.data.agentSessionId ? { agentSessionId: t.data.agentSessionId } : {}),
      };
      return withRun(state, { ...run, codons: { ...run.codons, [codon.codonId]: updated } });
    }
    case 'CostsIncremented':
      return addCost(state, t.data.runId, t.data.codonId, t.data.source, t.data.amount);
    case 'CostsUpdated': {
      // The agent's own running total replaces the engine's estimate of the agent's part.
      const codon = requireCodon(requireRun(state, t.data.runId), t.data.codonId);
      return addCost(state, t.data.runId, t.data.codonId, 'agent', t.data.cost - codon.agentCost);
    }
    case 'CodonFinalCostSet': {
      // The codon's final total, sentinels included.
      const codon = requireCodon(requireRun(state, t.data.runId), t.data.codonId);
      return addCost(
        state,
        t.data.runId,
        t.data.codonId,
        'agent',
        t.data.cost - codon.sentinelCost - codon.agentCost,
      );
    }
    case 'AssistantMessageCountUpdated': {
      const run = requireRun(state, t.data.runId);
      const codon = requireCodon(run, t.data.codonId);
      return withRun(state, {
        ...run,
        codons: { ...run.codons, [codon.codonId]: { ...codon, assistantMessageCount: t.data.count } },
      });
    }
    case 'CheckpointCreated': {
      const run = requireRun(state, t.data.runId);
      return withRun(state, { ...run, checkpoints: [...run.checkpoints, t.data.checkpoint] });
    }
    case 'InitialCheckpointSet': {
      const run = requireRun(state, t.data.runId);
      return withRun(state, { ...run, initialCheckpoint: t.data.sha });
    }
    case 'SentinelStatesUpdated':
      // Sentinel states are reported as they are; costs arrive as CostsIncremented.
      requireCodon(requireRun(state, t.data.runId), t.data.codonId);
      return state;
  }
}

export function reduceAll(transitions: Iterable<Transition>, state = initialState()): EngineState {
  let s = state;
  for (const t of transitions) s = reduce(s, t);
  return s;
}

/** The `resultingState` of a state.transition event (spec 6.1). */
export function summary(state: EngineState) {
  // The run the execution is at: a server that found its plan done has begun none, and its events
  // (a budget's, a sentinel's) still count under the latest run.
  const latest = latestRunId(state);
  const current = latest ? own(state.runs, latest) : undefined;
  return {
    currentRunId: state.currentRunId,
    runCount: state.runOrder.length,
    totalCost: state.totalCost,
    currentRunCost: current?.cost ?? 0,
    ...(state.totalCostEstimated ? { totalCostEstimated: true as const } : {}),
    ...(current?.costEstimated ? { currentRunCostEstimated: true as const } : {}),
  };
}

/** A codon's cost as events give it (codon.completed): with `costEstimated` when part of it is an estimate. */
export const costOfCodon = (codon: CodonRecord | undefined): { cost: number; costEstimated?: true } => ({
  cost: codon?.cost ?? 0,
  ...(codon?.costEstimated ? { costEstimated: true as const } : {}),
});

/** A run by id (own keys only: see `own`). */
export const runOf = (state: EngineState, runId: string): RunState | undefined => own(state.runs, runId);

/** A codon's latest attempt in a run, by id (own keys only). */
export const codonOf = (run: RunState | undefined, codonId: string): CodonRecord | undefined =>
  run ? own(run.codons, codonId) : undefined;

function requireRun(state: EngineState, runId: string): RunState {
  const run = runOf(state, runId);
  if (!run) throw new TransitionError(`unknown run ${runId}`);
  return run;
}

function requireCodon(run: RunState, codonId: string) {
  const codon = codonOf(run, codonId);
  if (!codon) throw new TransitionError(`codon ${codonId} has not started in run ${run.runId}`);
  return codon;
}

function withRun(state: EngineState, run: RunState, currentRunId = state.currentRunId): EngineState {
  return { ...state, runs: { ...state.runs, [run.runId]: run }, currentRunId };
}

function endRun(state: EngineState, runId: string, status: RunStatus, endedAt: string): EngineState {
  const run = requireRun(state, runId);
  if (run.status !== 'running') throw new TransitionError(`run ${runId} already ended (${run.status})`);
  return withRun(
    state,
    { ...run, status, endedAt },
    state.currentRunId === runId ? null : state.currentRunId,
  );
}

function addCost(
  state: EngineState,
  runId: string,
  codonId: string,
  part: 'agent' | 'sentinel',
  delta: number,
): EngineState {
  const run = requireRun(state, runId);
  const { costEstimated: _was, ...codon } = requireCodon(run, codonId);
  const split =
    part === 'agent' ? { agentCost: codon.agentCost + delta } : { sentinelCost: codon.sentinelCost + delta };
  // Marked once the estimated part is more than nothing; the run's and the total's marks then stay.
  const estimated = codon.agentCostPriced === true && (split.agentCost ?? codon.agentCost) > 0;
  const mark = estimated ? { costEstimated: true as const } : {};
  const next = withRun(state, {
    ...run,
    cost: run.cost + delta,
    ...mark,
    codons: { ...run.codons, [codonId]: { ...codon, ...split, cost: codon.cost + delta, ...mark } },
  });
  return { ...next, totalCost: state.totalCost + delta, ...(estimated ? { totalCostEstimated: true } : {}) };
}
