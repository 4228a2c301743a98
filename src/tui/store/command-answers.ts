import type { CommandType, ServerEvent } from '../../protocol/index.ts';
import type { RunState } from './run-state.ts';

/**
 * The events that answer a command with no reply of its own: a started codon answers next, start and
 * redo; a codon's end answers skip and force stop; a finished rollback its rollback. (An error with the
 * command's id fails it: errors.ts.)
 */
const ANSWERS: Partial<Record<ServerEvent['type'], readonly CommandType[]>> = {
  'codon.started': ['codon.next', 'codon.start', 'codon.redo'],
  'codon.completed': ['codon.skip', 'codon.forceStop'],
  'checkpoint.list': ['checkpoint.list'],
  'codon.message': ['codon.message'],
  'rollback.completed': ['rollback.toCheckpoint', 'rollback.toCodon', 'rollback.toLastSuccess'],
};

/** Marks the oldest command still "sent" that this event answers as answered. */
export function answerCommand(state: RunState, type: ServerEvent['type']): RunState {
  const types = ANSWERS[type];
  if (!types) return state;
  const i = state.commands.findIndex((c) => c.status === 'sent' && types.includes(c.type));
  if (i < 0) return state;
  const commands = state.commands.map((c, j) => (j === i ? { ...c, status: 'answered' as const } : c));
  return { ...state, commands };
}
