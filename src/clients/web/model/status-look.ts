import type { CodonStatus } from '../../../core/protocol/index.ts';
import type { RunState } from '../../model/store/run-state.ts';
import { idleSinceEnd } from '../../model/store/selectors.ts';

/**
 * The status colours (styles.css `--st-*`), one meaning each: running, passed, failed, waiting (held:
 * a usage limit, an approval, a rollback under way), skipped (ended by a person, passed over),
 * info, pending. Every view picks its class here, so a colour never means two things.
 */
export type StatusLook =
  | 'st-running'
  | 'st-passed'
  | 'st-failed'
  | 'st-waiting'
  | 'st-skipped'
  | 'st-info'
  | 'st-pending';

const BY_CODON_STATUS: Readonly<Record<CodonStatus, StatusLook>> = {
  pending: 'st-pending',
  preparing: 'st-running',
  running: 'st-running',
  completed: 'st-passed',
  failed: 'st-failed',
  skipped: 'st-skipped',
  stopped: 'st-skipped',
};

/** A codon's look: `waiting` when a wait holds it (a usage limit, an approval), else by its status. */
export function codonLook(status: CodonStatus, waiting = false): StatusLook {
  return waiting ? 'st-waiting' : BY_CODON_STATUS[status];
}

/** The run's look in the header, as runWord words it: held, ended well or badly, idle, running. */
export function runLook(run: RunState['run'], held = false): StatusLook {
  if (held || run.isRollingBack || run.usageWait || run.approvalWait) return 'st-waiting';
  if (run.runStatus && run.runStatus !== 'running' && !idleSinceEnd(run))
    return run.runStatus === 'completed' ? 'st-passed' : 'st-failed';
  if (run.idle?.reason === 'all-codons-completed') return 'st-passed';
  if (run.idle) return 'st-pending';
  return run.runStatus === 'running' ? 'st-running' : 'st-pending';
}
