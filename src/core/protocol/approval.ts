import { z } from 'zod';
import { ours } from './extension.ts';

/**
 * Ours: approval gates (docs/review.md#approval-gates). A codon with `approval: required` that ends
 * well (its gates passed) holds the run until a person approves it, requests changes (a review sent
 * to `redo`), or rolls back. A server restarted during the wait waits again.
 */

/** Who may end an approval wait: today any client in control mode (never a readonly one). */
export const Approvers = z.enum(['control-clients']);

export const ApprovalWait = z.object({
  codonId: z.string(),
  codonName: z.string(),
  /** The checkpoint the codon ended at: what is being approved. */
  checkpointSha: z.string().optional(),
  /** When the wait began (ISO 8601). */
  since: z.string(),
  approvers: Approvers,
});
export type ApprovalWait = z.infer<typeof ApprovalWait>;

export const ApprovalApproveRequest = ours(
  z.object({
    codonId: z.string().min(1),
    note: z.string().max(4096).optional(),
  }),
  'Approves the codon the run waits on (approval: required); the run goes on. Refused to readonly clients.',
);
export type ApprovalApproveRequest = z.infer<typeof ApprovalApproveRequest>;

/**
 * How an approval wait ended: `approved` by a client; `auto` by `--approve-all`; `changes-requested`
 * by a review sent to `redo`; `rolled-back` by a rollback; `command` by another command that started
 * a codon (codon.redo, codon.start of the same codon).
 */
export const ApprovalEnd = z.enum(['approved', 'auto', 'changes-requested', 'rolled-back', 'command']);

export const approvalEvents = {
  'approval.waiting': ours(
    ApprovalWait.extend({ message: z.string() }),
    'A codon that requires approval ended well: the run waits for a person.',
  ),
  'approval.ended': ours(
    z.object({
      codonId: z.string(),
      how: ApprovalEnd,
      /** The client that ended it (absent for `auto`). */
      clientId: z.string().optional(),
      command: z.string().optional(),
      note: z.string().optional(),
      message: z.string(),
    }),
    'An approval wait ended: approved, changes requested, rolled back, or another command took over.',
  ),
};

/** The events that say whether an approval wait goes on: a wait is in progress while the newest is approval.waiting. */
export const APPROVAL_TURNS = ['approval.waiting', 'approval.ended', 'codon.started'] as const;
