import type { CommandType } from '../../../core/protocol/index.ts';
import { commandLine } from '../../model/store/command-answers.ts';
import type { RunState, SentCommand } from '../../model/store/run-state.ts';

/**
 * The progress line shows a rollback this page asked for, while it runs and once it ends, until a
 * later command of the page takes the line over. Another client's rollback, or one a fresh page finds
 * in the history (a restarted server's recovery too), is not this page's news: the header and the
 * activity say it.
 */
export function showsRollback(rollback: RunState['rollback'], last: SentCommand | undefined): boolean {
  if (rollback.phase === 'idle' || rollback.cause === 'recovery') return false;
  return last !== undefined && last.id === rollback.commandId;
}

/** What an answered command did, in a person's words; the others read `<label>: done`. */
const DONE: Partial<Record<CommandType, string>> = {
  'review.comment': 'comment saved: it goes with the next review',
  'review.submit': 'review sent',
  'approval.approve': 'approved',
  'checkpoint.list': 'checkpoints listed',
};

/**
 * The page's last command as one line beside the controls: `comment on two a.ts…` while it waits,
 * `comment saved…` once answered, `… refused: why` when the server said no.
 */
export function commandWords(c: SentCommand): string {
  if (c.type === 'codon.message') return commandLine(c);
  if (c.status === 'sent') return `${c.label}…`;
  if (c.status === 'failed') return `${c.label}: refused (${c.error ?? 'no reason given'})`;
  return DONE[c.type] ?? `${c.label}: done`;
}

/**
 * The store's notice for a command this page just sent (`sent <type>: <label>`) repeats the progress
 * line beside the controls: one line says it.
 */
export function echoesCommand(notice: string, last: SentCommand | undefined): boolean {
  return last !== undefined && notice === `sent ${last.type}: ${last.label}`;
}
