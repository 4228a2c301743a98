import type { ApprovalWait, ErrorCode, EventInput } from '../../core/protocol/index.ts';
import { approvalWaitWords, approvalWaysOut } from '../../core/words/approval-words.ts';

/**
 * Approval gates (docs/review.md#approval-gates), the rules: when a codon's end holds the run, what
 * each command does while it waits, and whether approval.approve may end it. Pure: the gate
 * (approval-gate.ts) asks them and journals what follows.
 */

export type ApprovalHow = EventInput<'approval.ended'>['how'];

/**
 * A codon with `approval: required` that ended well (completed: its gates passed) holds the run;
 * `status` as what-next.ts's EndStatus says it (failed, skipped and stopped never hold it).
 */
export function holdsRun(codon: { approval?: 'required' | 'none' }, status: string): boolean {
  return codon.approval === 'required' && status === 'completed';
}

/** `waiting for approval of codon design`: the approval.waiting message, the idle's, the notices'. */
export const waitingMessage = approvalWaitWords;

/** The three ways out, as a refusal and the idle say them. */
export const waysOut = approvalWaysOut;

/** A command as the gate reads it: its type, and the codon and review target its data names. */
export type GateCommand = { type: string; codonId?: string; to?: string };

/** What a command does to the wait: nothing, refused, or it ends the wait and goes on. */
export type ApprovalTurn =
  | { kind: 'pass' }
  | { kind: 'refuse'; code: ErrorCode; message: string }
  | { kind: 'end'; how: ApprovalHow };

/**
 * While a codon waits: codon.next and codon.start of another codon are refused (nothing else starts
 * before a person has looked); codon.redo and codon.start of the waiting codon run it again, a
 * review sent to redo it requests changes, any rollback goes back: each ends the wait. Reads,
 * messages, stops (nothing runs) and approval.approve (its own route) pass.
 */
export function approvalTurn(wait: ApprovalWait, command: GateCommand): ApprovalTurn {
  const refuse = (what: string): ApprovalTurn => ({
    kind: 'refuse',
    code: 'APPROVAL_REQUIRED',
    message: `${what}: ${waitingMessage(wait)}; ${waysOut(wait.codonId)}`,
  });
  switch (command.type) {
    case 'codon.next':
      return refuse('codon.next is refused');
    case 'codon.start':
      return command.codonId === wait.codonId
        ? { kind: 'end', how: 'command' }
        : refuse(`codon.start of ${command.codonId ?? 'another codon'} is refused`);
    case 'codon.redo':
      return { kind: 'end', how: 'command' };
    case 'review.submit':
      return command.to === 'redo' && command.codonId === wait.codonId
        ? { kind: 'end', how: 'changes-requested' }
        : { kind: 'pass' };
    case 'rollback.toCheckpoint':
    case 'rollback.toCodon':
    case 'rollback.toLastSuccess':
      return { kind: 'end', how: 'rolled-back' };
    default:
      return { kind: 'pass' };
  }
}

/** Whether approval.approve {codonId} may end the wait: only the waiting codon's. */
export function approveCheck(
  wait: ApprovalWait | undefined,
  codonId: string,
): { ok: true; wait: ApprovalWait } | { ok: false; code: ErrorCode; message: string } {
  if (!wait)
    return {
      ok: false,
      code: 'NOTHING_TO_APPROVE',
      message: `no codon waits for approval, so codon ${codonId} cannot be approved (only a codon with approval: required that ended well waits)`,
    };
  if (wait.codonId !== codonId)
    return {
      ok: false,
      code: 'NOTHING_TO_APPROVE',
      message: `codon ${codonId} does not wait for approval; codon ${wait.codonId} does (approval.approve {"codonId":"${wait.codonId}"})`,
    };
  return { ok: true, wait };
}

/**
 * The approval.ended message: `codon design approved by client-3: the run goes on`, `... (changes
 * requested)`. `autostart` false (`--no-autostart`): an approval says the run stays idle until told.
 */
export function endedMessage(
  codonId: string,
  how: ApprovalHow,
  by?: string,
  command?: string,
  autostart = true,
): string {
  const who = by ? ` by ${by}` : '';
  switch (how) {
    case 'approved':
      return autostart
        ? `codon ${codonId} approved${who}: the run goes on`
        : `codon ${codonId} approved${who}; autostart is off, so the run stays idle until the next codon is started (codon.next)`;
    case 'auto':
      return `codon ${codonId} approved at once (--approve-all)`;
    case 'changes-requested':
      return `changes to codon ${codonId} requested${who}: it runs again with the review`;
    case 'rolled-back':
      return `the approval wait of codon ${codonId} ends: ${command ?? 'a rollback'}${who} goes back`;
    case 'command':
      return `the approval wait of codon ${codonId} ends: ${command ?? 'a command'}${who} takes over`;
  }
}
