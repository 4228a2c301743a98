import type { EventInput } from '../../core/protocol/index.ts';

/**
 * The pure core of marking file.updated events whose file checkpoints leave out (ignored-marker.ts is
 * its shell): events keep their order, and the paths of all that arrived while one check ran are
 * checked together in the next.
 */

export type FileUpdate = EventInput<'file.updated'>;

export type MarkerState =
  | { phase: 'idle'; failing: boolean }
  | { phase: 'checking'; failing: boolean; batch: readonly FileUpdate[]; waiting: readonly FileUpdate[] };

/** The answer to a check: the batch's ignored paths, or no answer (the check failed). */
export type CheckAnswer = { ok: true; ignored: ReadonlySet<string> } | { ok: false };

export type Step = {
  state: MarkerState;
  /** Events to publish now, in this order. */
  emit: readonly FileUpdate[];
  /** Paths to check next (each once), when a check is to start. */
  check?: readonly string[];
  /** The check failed where the last one had not: say so once, not once per batch. */
  logFailure?: true;
};

export const INITIAL_MARKER: MarkerState = { phase: 'idle', failing: false };

/** An event seen: it starts a check when none runs, else waits for the next. */
export function arrive(state: MarkerState, event: FileUpdate): Step {
  if (state.phase === 'checking')
    return { state: { ...state, waiting: [...state.waiting, event] }, emit: [] };
  return startCheck(state.failing, [event], []);
}

/**
 * The running check answered: its batch goes out, each ignored path marked (none on a failure:
 * unmarked is what a client saw before the mark existed), and the events that waited are checked next.
 */
export function answered(state: MarkerState, answer: CheckAnswer): Step {
  if (state.phase !== 'checking') return { state, emit: [] };
  const emit = answer.ok
    ? state.batch.map((event) =>
        answer.ignored.has(event.path) ? { ...event, ignored: true as const } : event,
      )
    : state.batch;
  const failing = !answer.ok;
  const logFailure = failing && !state.failing ? { logFailure: true as const } : {};
  if (state.waiting.length === 0) return { state: { phase: 'idle', failing }, emit, ...logFailure };
  return { ...startCheck(failing, state.waiting, emit), ...logFailure };
}

function startCheck(failing: boolean, batch: readonly FileUpdate[], emit: readonly FileUpdate[]): Step {
  return {
    state: { phase: 'checking', failing, batch, waiting: [] },
    emit,
    check: [...new Set(batch.map((event) => event.path))],
  };
}
