import type { EngineState } from '../execution/state/reducer.ts';
import { runOf } from '../execution/state/reducer.ts';
import type { TransitionData } from '../execution/state/transitions.ts';
import { lineageOf } from './what-next.ts';

export type RunEnd =
  | { type: 'RunFailed'; data: TransitionData<'RunFailed'> }
  | { type: 'RunCompleted'; data: TransitionData<'RunCompleted'> };

/**
 * How the current run ends when its server stops: failed when its latest codon did not end well
 * (the next server brings it back to its last clean point), else completed; nothing for a run
 * already ended. Pure.
 */
export function runEndAtShutdown(state: EngineState, reason: string, endedAt: string): RunEnd | undefined {
  const run = state.currentRunId ? runOf(state, state.currentRunId) : undefined;
  if (run?.status !== 'running') return undefined;
  const last = lineageOf(state).endings.at(-1);
  const broke = run.order.length > 0 && last && last.status !== 'completed' && last.status !== 'skipped';
  return broke && last
    ? {
        type: 'RunFailed',
        data: { runId: run.runId, endedAt, reason: `codon ${last.codonId} ${last.status}; ${reason}` },
      }
    : { type: 'RunCompleted', data: { runId: run.runId, endedAt } };
}
