import type { ServerEventOf } from '../../../core/protocol/index.ts';
import { own } from '../../../core/protocol/own.ts';
import {
  APPROVAL_WAIT_ICON,
  APPROVAL_WAIT_WORD,
  type ApprovalWait,
  approvalEndedText,
  approvalWaitText,
} from '../approval-wait.ts';
import { oneLine } from '../format.ts';
import { note } from './activity.ts';
import { upsertCodon } from './codons.ts';
import type { RunState } from './run-state.ts';

/**
 * The approval wait in progress (docs/review.md#approval-gates), one value in the run's state: begun
 * by approval.waiting, a server.idle held by approval, or a state.snapshot carrying approvalWait (a
 * client that connects mid-wait, a restarted server); ended by approval.ended, any codon starting, a
 * new run, a rollback, or a snapshot without one. Its codon's row says it waits for as long as it lasts.
 */

export function beginApprovalWait(state: RunState, wait: ApprovalWait): RunState {
  const ended = endApprovalWait(state);
  const marked = upsertCodon(ended, wait.codonId, (row) => ({ ...row, note: APPROVAL_WAIT_WORD }));
  return { ...marked, run: { ...marked.run, approvalWait: wait } };
}

/** No wait any more: the run's and its codon's row's. The state itself when there was none. */
export function endApprovalWait(state: RunState): RunState {
  const wait = state.run.approvalWait;
  if (wait === undefined) return state;
  const { approvalWait: _w, ...run } = state.run;
  const row = own(state.codons, wait.codonId);
  const unmarked =
    row?.note === APPROVAL_WAIT_WORD
      ? upsertCodon(state, wait.codonId, ({ note: _n, ...rest }) => rest)
      : state;
  return { ...unmarked, run };
}

const waitOf = (d: ApprovalWait): ApprovalWait => ({
  codonId: d.codonId,
  codonName: d.codonName,
  ...(d.checkpointSha === undefined ? {} : { checkpointSha: d.checkpointSha }),
  since: d.since,
  approvers: d.approvers,
});

/** approval.waiting: the wait begins; a line and the notice say so. */
export function approvalWaiting(state: RunState, e: ServerEventOf<'approval.waiting'>): RunState {
  const wait = waitOf(e.data);
  const text = `${APPROVAL_WAIT_ICON} ${oneLine(approvalWaitText(wait))}`;
  return {
    ...note(beginApprovalWait(state, wait), e.id, text, 'warn'),
    notice: { text: oneLine(approvalWaitText(wait)), tone: 'warn' },
  };
}

/** approval.ended: approved, changes requested, rolled back, or another command took over. */
export function approvalEnded(state: RunState, e: ServerEventOf<'approval.ended'>): RunState {
  return note(endApprovalWait(state), e.id, `▷ ${oneLine(approvalEndedText(e.data))}`, 'info');
}

/** A wait a state.snapshot or a server.idle says is in progress (or, a snapshot, that none is). */
export function knownApprovalWait(state: RunState, wait: ApprovalWait | undefined): RunState {
  if (wait === undefined) return endApprovalWait(state);
  const now = state.run.approvalWait;
  const same = now !== undefined && now.codonId === wait.codonId && now.since === wait.since;
  return same ? state : beginApprovalWait(state, waitOf(wait));
}
