import type { CheckpointInfo, CodonExecution, CodonStatus } from '../../../core/protocol/index.ts';
import { own } from '../../../core/protocol/own.ts';
import { adopt, draftOf, isDraft } from './batch-draft.ts';
import type { CodonRow, RunState } from './run-state.ts';

/** The plan as far as events have shown it: codon rows by id. */

type Codons = RunState['codons'];

const ENDED: ReadonlySet<CodonStatus> = new Set(['completed', 'failed', 'skipped', 'stopped']);
/** The note of a codon a rollback undid. */
export const UNDONE = 'undone';
export const isActiveStatus = (s: CodonStatus) => s === 'preparing' || s === 'running';

/** Updates a codon row, creating it (pending) first when the UI has not heard of it yet. */
export function upsertCodon(
  state: RunState,
  codonId: string,
  change: (row: CodonRow) => CodonRow,
  codonName?: string,
): RunState {
  const existing = own(state.codons, codonId);
  const base: CodonRow = existing ?? {
    codonId,
    codonName: codonName ?? codonId,
    seen: state.seenCount,
    status: 'pending',
    cost: 0,
    attempts: 0,
  };
  const named = codonName && base.codonName !== codonName ? { ...base, codonName } : base;
  const next = change(named);
  if (next === existing) return state;
  // In a batch, the rows and the record it made are changed in place by its later events (batch-draft.ts).
  const codons = draftOf(state.codons);
  codons[codonId] = adopt(next);
  if (existing && codons === state.codons) return state;
  return { ...state, codons, seenCount: existing ? state.seenCount : state.seenCount + 1 };
}

/** Changes a codon row in place when the running batch made it and its record, else as upsertCodon does. */
function editCodon(state: RunState, codonId: string, edit: (row: CodonRow) => void): RunState {
  const row = own(state.codons, codonId);
  if (row && isDraft(row) && isDraft(state.codons)) {
    edit(row);
    return state;
  }
  return upsertCodon(state, codonId, (r) => {
    const copy = { ...r };
    edit(copy);
    return copy;
  });
}

/**
 * A codon starts: the CodonStarted transition (with its plan index) opens a new attempt; a
 * codon.started that follows it only adds names. A codon.started alone (no transitions seen) opens one.
 */
export function codonStarted(
  state: RunState,
  d: { codonId: string; codonName: string; startTime: string; codonIndex?: number; agent?: string },
  status: 'preparing' | 'running',
  always: boolean,
): RunState {
  return upsertCodon(
    state,
    d.codonId,
    (row) => {
      const newAttempt = always || !isActiveStatus(row.status);
      return {
        ...row,
        ...(d.codonIndex === undefined ? {} : { index: d.codonIndex }),
        ...(d.agent === undefined ? {} : { agent: d.agent }),
        startTime: d.startTime,
        ...(newAttempt
          ? {
              status,
              attempts: row.attempts + 1,
              cost: 0,
              costEstimated: undefined,
              duration: undefined,
              failureReason: undefined,
              note: undefined,
            }
          : {}),
      };
    },
    d.codonName,
  );
}

/**
 * codon.started's attempt fields: which automatic attempt runs, and with which model (the first
 * attempt's model is kept, so a later one on another model shows as the fallback).
 */
export function noteAttempt(
  state: RunState,
  d: { codonId: string; attempt?: number; maxAttempts?: number; model?: string },
): RunState {
  if (d.attempt === undefined) {
    if (!own(state.codons, d.codonId)?.retry) return state;
    return upsertCodon(state, d.codonId, ({ retry: _r, ...row }) => row);
  }
  const { attempt } = d;
  return upsertCodon(state, d.codonId, (row) => {
    const firstModel = attempt === 1 ? d.model : (row.retry?.firstModel ?? undefined);
    return {
      ...row,
      retry: {
        attempt,
        maxAttempts: d.maxAttempts ?? attempt,
        ...(d.model ? { model: d.model } : {}),
        ...(firstModel ? { firstModel } : {}),
      },
    };
  });
}

/** "attempt 2/3" while an automatic attempt of a codon that may be retried runs. */
export function attemptWord(row: CodonRow): string | undefined {
  const r = row.retry;
  if (!r || !isActiveStatus(row.status) || (r.attempt === 1 && r.maxAttempts === 1)) return undefined;
  return `attempt ${r.attempt}/${r.maxAttempts}`;
}

/** The model of the latest attempt when it is not the first attempt's: the fallback. */
export function fallbackModelOf(row: CodonRow): string | undefined {
  const r = row.retry;
  return r?.model && r.attempt > 1 && r.model !== r.firstModel ? r.model : undefined;
}

/** codon.completed: keeps skipped/stopped (a transition said so first); else completed or failed. */
export function codonCompleted(
  state: RunState,
  d: {
    codonId: string;
    success: boolean;
    cost: number;
    costEstimated?: boolean;
    duration: number;
    failureReason?: CodonRow['failureReason'];
  },
): RunState {
  return upsertCodon(state, d.codonId, (row) => ({
    ...row,
    status:
      row.status === 'skipped' || row.status === 'stopped' ? row.status : d.success ? 'completed' : 'failed',
    cost: d.cost,
    // The attempt's token.usage said so already (a server before codon.completed carried it).
    costEstimated: d.costEstimated === true || row.costEstimated === true,
    duration: d.duration,
    ...(d.failureReason ? { failureReason: d.failureReason } : {}),
    attempts: Math.max(row.attempts, 1),
  }));
}

/** A state.snapshot is authoritative for the codons it lists. */
export function applySnapshotCodons(state: RunState, executions: readonly CodonExecution[]): RunState {
  let next = state;
  for (const e of executions) {
    next = upsertCodon(
      next,
      e.codonId,
      (row) => ({
        ...row,
        status: e.status,
        cost: e.cost,
        costEstimated: e.costEstimated === true,
        ...(e.duration === undefined ? {} : { duration: e.duration }),
        ...(e.startTime ? { startTime: e.startTime } : {}),
        ...(e.failureReason ? { failureReason: e.failureReason } : {}),
        attempts: Math.max(row.attempts, e.status === 'pending' ? 0 : 1),
      }),
      e.codonName,
    );
  }
  return next;
}

/** Checkpoints name codons too: codons of earlier runs become known that way. */
export function learnCodonsFromCheckpoints(
  state: RunState,
  checkpoints: readonly CheckpointInfo[],
): RunState {
  let next = state;
  for (const c of checkpoints) {
    if (!own(next.codons, c.codonId)) {
      next = upsertCodon(next, c.codonId, (row) => ({ ...row, status: c.status }), c.codonName);
    }
  }
  return next;
}

/** A codon still active when its run crashed is failed (the server's reducer does the same). */
export function failActiveCodons(state: RunState, note: string): RunState {
  let next = state;
  for (const row of Object.values(state.codons)) {
    if (isActiveStatus(row.status))
      next = upsertCodon(next, row.codonId, (r) => ({ ...r, status: 'failed', note }));
  }
  return next;
}

/**
 * Codons a rollback undid have not run in the run that goes on: pending again, without the undone
 * attempt's cost, time or attempts (the server's totals no longer count them either), marked so.
 */
export function markUndone(state: RunState, codonIds: readonly string[]): RunState {
  let next = state;
  for (const id of codonIds) {
    if (!own(next.codons, id)) continue;
    next = upsertCodon(next, id, ({ duration: _d, startTime: _s, failureReason: _f, ...row }) => ({
      ...row,
      status: 'pending',
      cost: 0,
      costEstimated: undefined,
      attempts: 0,
      note: UNDONE,
    }));
  }
  return next;
}

export function setCodonCost(state: RunState, codonId: string, cost: (row: CodonRow) => number): RunState {
  return upsertCodon(state, codonId, (row) => ({ ...row, cost: cost(row) }));
}

/** A token.usage priced by Ribosome (costEstimated): the codon's running attempt costs an estimate. */
export function markCostEstimated(state: RunState, codonId: string): RunState {
  const row = own(state.codons, codonId);
  if (row?.costEstimated) return state;
  return upsertCodon(state, codonId, (r) => ({ ...r, costEstimated: true }));
}

/** Codon rows in plan order where known, else in the order they were first heard of. */
export function orderedCodons(codons: Codons): CodonRow[] {
  const key = (c: CodonRow) => c.index ?? Number.POSITIVE_INFINITY;
  return Object.values(codons).sort((a, b) => key(a) - key(b) || a.seen - b.seen);
}

export function runningCodon(codons: Codons): CodonRow | undefined {
  return Object.values(codons).find((c) => isActiveStatus(c.status));
}

export const isEnded = (s: CodonStatus) => ENDED.has(s);

/**
 * Tallies an agent action on its codon's row: the codon's summary stays right however few of its
 * actions the activity pane still keeps.
 */
export function countAction(state: RunState, d: { codonId: string; action: string }): RunState {
  return editCodon(state, d.codonId, (row) => {
    if (d.action === 'tool_use') row.toolCalls = (row.toolCalls ?? 0) + 1;
    else row.messages = (row.messages ?? 0) + 1;
  });
}
