import { approvalWaysOut } from '../../../core/words/approval-words.ts';
import type { RunState } from '../../model/store/run-state.ts';

/** The ways out of an approval wait in this UI's words: its keys, not the protocol's commands. */
export const APPROVAL_KEY_WORDS = 'a approve · r request changes · u roll back';

/**
 * The status line's news as the terminal UI says it (pure): the server's words of an approval wait
 * name protocol commands (`approval.approve {"codonId":"two"}`, ...), which a person in the UI does
 * with keys; those words become the keys'.
 */
export function tuiNotice(
  notice: RunState['notice'],
  wait: RunState['run']['approvalWait'],
): RunState['notice'] {
  if (!notice || !wait) return notice;
  const protocol = approvalWaysOut(wait.codonId);
  return notice.text.includes(protocol)
    ? { ...notice, text: notice.text.replace(protocol, APPROVAL_KEY_WORDS) }
    : notice;
}
