import { APPROVAL_TURNS, type ApprovalWait, approvalEvents } from '../../core/protocol/index.ts';
import type { Journal } from '../../execution/journal/journal.ts';

/**
 * The approval wait a previous server journaled and nothing ended (docs/review.md#approval-gates):
 * the newest of APPROVAL_TURNS is an approval.waiting (no approval.ended, no codon started since). A
 * server stopped or killed during the wait journals no end, so the next one waits again. Undefined
 * when there is none, or its row cannot be read (the server then goes on as without it).
 */
export function pendingApproval(journal: Pick<Journal, 'lastOf'>): ApprovalWait | undefined {
  const row = journal.lastOf(APPROVAL_TURNS);
  if (row?.type !== 'approval.waiting') return undefined;
  let data: unknown;
  try {
    data = (JSON.parse(row.json) as { data?: unknown }).data;
  } catch {
    return undefined;
  }
  const parsed = approvalEvents['approval.waiting'].safeParse(data);
  if (!parsed.success) return undefined;
  const { message: _message, ...wait } = parsed.data;
  return wait;
}
