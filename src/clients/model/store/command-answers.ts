import type { CommandType, ServerEvent } from '../../../core/protocol/index.ts';
import { isOwnMessage, messageSentLine } from './messages.ts';
import type { RunState, SentCommand } from './run-state.ts';

/**
 * The events that answer a command with no reply of its own: a started codon answers next, start and
 * redo; a codon's end answers skip and force stop; a finished rollback its rollback; our own review.comment
 * and review.sent answer our comment and review; an approval's end the approval. (An error with the
 * command's id fails it: errors.ts.)
 */
const ANSWERS: Partial<Record<ServerEvent['type'], readonly CommandType[]>> = {
  'codon.started': ['codon.next', 'codon.start', 'codon.redo'],
  'codon.completed': ['codon.skip', 'codon.forceStop'],
  'checkpoint.list': ['checkpoint.list'],
  'codon.message': ['codon.message'],
  'review.comment': ['review.comment'],
  'review.sent': ['review.submit'],
  'rollback.completed': ['rollback.toCheckpoint', 'rollback.toCodon', 'rollback.toLastSuccess'],
  'approval.ended': ['approval.approve'],
};

/**
 * Marks the oldest command still "sent" that this event answers as answered. A codon.message answers
 * ours only when our client sent it (another client's or a sentinel's is not the answer), and says
 * where it went.
 */
export function answerCommand(state: RunState, e: ServerEvent): RunState {
  const types = ANSWERS[e.type];
  if (!types) return state;
  let outcome: string | undefined;
  if (e.type === 'codon.message') {
    if (!isOwnMessage(e.data.from, state.connection.clientIds)) return state;
    outcome = messageSentLine(e.data);
  }
  // Another client's (or a sentinel's) comment or review answers none of ours.
  if (e.type === 'review.comment' && !isOwnMessage(e.data.author, state.connection.clientIds)) return state;
  if (e.type === 'review.sent' && !isOwnMessage(e.data.by, state.connection.clientIds)) return state;
  const i = state.commands.findIndex((c) => c.status === 'sent' && types.includes(c.type));
  if (i < 0) return state;
  const answered = (c: SentCommand): SentCommand => ({
    ...c,
    status: 'answered',
    ...(outcome === undefined ? {} : { outcome }),
  });
  const commands = state.commands.map((c, j) => (j === i ? answered(c) : c));
  return { ...state, commands };
}

/**
 * A command's state as a status line says it: a message as a sentence ("sending the message…",
 * "message sent to two's agent (live)", "message not sent: NO_CODON_RUNNING: ..."), the others as
 * "label: status (error)".
 */
export function commandLine(c: SentCommand): string {
  if (c.type === 'codon.message') {
    if (c.status === 'sent') return 'sending the message to the agent…';
    if (c.status === 'answered') return c.outcome ?? 'message sent to the agent';
    return `message not sent: ${c.error ?? 'refused'}`;
  }
  return `${c.label}: ${c.status}${c.error ? ` (${c.error})` : ''}`;
}
