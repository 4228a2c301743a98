/**
 * The orchestrator's phase, in one place: every change goes through `nextPhase`, so each state it
 * can be in, and what moves it, reads here. Whether a codon runs is the codon lifecycle's, a retry
 * waiting is Retrying's, and a rollback taken but not at its turn yet is the rollback admission's.
 */

/** Who moves the run back: a client's rollback command, a sentinel's rollback or redo, a server start's recovery. */
export type RollbackBy = 'client' | 'sentinel' | 'recovery';

export type OrchestratorPhase =
  /** Taking commands: codons start and end, retries wait. */
  | { kind: 'open' }
  /** A rollback from its turn until its run switch is done, or it is refused: state changes are refused. */
  | { kind: 'rolling-back'; by: RollbackBy }
  /**
   * No new work: a shutdown, or onFailure then: abort. It never ends; a rollback under way when it
   * began (or one whose turn comes after, to be refused) holds `rollingBack` until it is done.
   */
  | { kind: 'stopping'; reason: string; rollingBack?: RollbackBy };

export type PhaseChange =
  | { kind: 'rollback-begins'; by: RollbackBy }
  /** The run switch is done, or the rollback was refused; a refusal after the switch ends nothing more. */
  | { kind: 'rollback-ends' }
  | { kind: 'stop'; reason: string };

/**
 * The one transition function. Rollbacks take turns in the engine's queue, so a second one never
 * begins while one runs: that would be a bug, and it fails loudly.
 */
export function nextPhase(state: OrchestratorPhase, change: PhaseChange): OrchestratorPhase {
  switch (change.kind) {
    case 'rollback-begins':
      if (rollingBack(state)) throw new Error(`a ${change.by} rollback began while one runs`);
      return state.kind === 'stopping'
        ? { ...state, rollingBack: change.by }
        : { kind: 'rolling-back', by: change.by };
    case 'rollback-ends':
      if (!rollingBack(state)) return state;
      return state.kind === 'stopping' ? { kind: 'stopping', reason: state.reason } : { kind: 'open' };
    case 'stop':
      // The first reason stands (an abort, then the shutdown it asked for).
      if (state.kind === 'stopping') return state;
      return {
        kind: 'stopping',
        reason: change.reason,
        ...(state.kind === 'rolling-back' ? { rollingBack: state.by } : {}),
      };
  }
}

export function rollingBack(state: OrchestratorPhase): boolean {
  return state.kind === 'rolling-back' || (state.kind === 'stopping' && state.rollingBack !== undefined);
}

export function stopping(state: OrchestratorPhase): boolean {
  return state.kind === 'stopping';
}
