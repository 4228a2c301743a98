import type { RunState, SentCommand } from '../../model/store/run-state.ts';

/**
 * The progress line shows the rollback while it runs, or when it is the last thing this page asked
 * for (or the page asked for nothing since it loaded); a later command takes the line over. A
 * restarted server's recovery, done, is nobody's rollback: the line beside the controls leaves it out.
 */
export function showsRollback(rollback: RunState['rollback'], last: SentCommand | undefined): boolean {
  if (rollback.phase === 'idle') return false;
  if (rollback.phase === 'requested' || rollback.phase === 'running') return true;
  if (rollback.cause === 'recovery') return false;
  return last === undefined || last.id === rollback.commandId;
}
