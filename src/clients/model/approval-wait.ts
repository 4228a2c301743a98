import type { ApprovalWait, EventData } from '../../core/protocol/index.ts';
import { approvalWaitWords } from '../../core/words/approval-words.ts';

/**
 * How every client words an approval gate (docs/review.md#approval-gates): one wording for the
 * terminal UI, the dashboard, `runs`, `log`, the MCP status and the console view.
 */

export type { ApprovalWait };

/** What a codon the run waits on says beside its status (the codon list, the overview). */
export const APPROVAL_WAIT_WORD = 'waiting for approval';
/** The same in the terminal UI's status column, eleven characters wide. */
export const APPROVAL_WAIT_SHORT = 'approval';
/** A question to a person: the run waits for their answer (one column wide, as the other status marks). */
export const APPROVAL_WAIT_ICON = '?';

/** `waiting for approval of codon design`: the header, the banner, `ribosome runs` (as the engine says it). */
export const approvalWaitText = approvalWaitWords;

const HOW: Record<EventData<'approval.ended'>['how'], string> = {
  approved: 'approved',
  auto: 'approved at once (--approve-all)',
  'changes-requested': 'changes requested',
  'rolled-back': 'rolled back',
  command: 'another command took over',
};

/** `design: approved`, `design: changes requested`, `design: codon.redo took over`. */
export function approvalEndedText(
  d: Pick<EventData<'approval.ended'>, 'codonId' | 'how' | 'command'>,
): string {
  const how = d.how === 'command' && d.command ? `${d.command} took over` : HOW[d.how];
  return `${d.codonId}: ${how}`;
}
