import type { RunState, SentCommand } from '../../model/store/run-state.ts';

/**
 * The progress line shows the rollback while it runs, or when it is the last thing this page asked
 * for (or the page asked for nothing since it loaded); a later command takes the line over.
 */
export function showsRollback(rollback: RunState['rollback'], last: SentCommand | undefined): boolean {
  if (rollback.phase === 'idle') return false;
  if (rollback.phase === 'requested' || rollback.phase === 'running') return true;
  return last === undefined || last.id === rollback.commandId;
}
