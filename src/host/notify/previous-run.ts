import type { DatabaseSync } from 'node:sqlite';
import { reduceAll, runOf } from '../../execution/state/reducer.ts';
import { SqliteTransitionLog } from '../../execution/state/state-store.ts';
import type { NoticeContext } from './notices.ts';

/**
 * The last run the execution's state holds as this server starts (what a crash's codon-failed
 * speaks of), read before the engine adds to it. Undefined for a new execution.
 */
export function previousRun(db: DatabaseSync): NoticeContext['previousRun'] {
  const state = reduceAll(new SqliteTransitionLog(db).load());
  const last = state.runOrder.at(-1);
  const run = last ? runOf(state, last) : undefined;
  if (!run) return undefined;
  return { runId: run.runId, cost: run.cost, ...(run.costEstimated ? { costEstimated: true } : {}) };
}
