import type { EventData } from './events.ts';

/**
 * Whether an idle server means the run is over for `--exit-when-done`: `true` when every codon is
 * done, `false` when the codon that ended last failed or was stopped, undefined to keep waiting.
 * `lastFailed` (from codon.completed) stands in for servers that do not send `lastEnded`.
 */
export function doneVerdict(idle: EventData<'server.idle'>, lastFailed: boolean): boolean | undefined {
  if (idle.reason === 'all-codons-completed') return true;
  if (idle.reason === 'startup') return undefined;
  // The plan ran to its end past codons that failed (onFailure then: continue): not every codon is done.
  if (idle.passedOver && idle.passedOver.length > 0) return false;
  // An exhausted budget holds the run: nothing more starts by itself.
  if (idle.heldBy === 'budget') return false;
  const failed = idle.lastEnded
    ? idle.lastEnded.status === 'failed' || idle.lastEnded.status === 'stopped'
    : lastFailed;
  return failed ? false : undefined;
}
