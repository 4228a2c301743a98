import type { CommandInput, CommandType, ReviewTarget } from '../../core/protocol/index.ts';
import type { ClientPort } from './client-port.ts';
import type { StoreAction } from './store/run-state.ts';
import type { RollbackChoice } from './store/selectors.ts';

/** What the UI can ask of the server. Every action is one protocol command; answers come as events. */
export type ClientActions = {
  next(): void;
  skip(): void;
  redo(): void;
  start(codonId: string): void;
  forceStop(reason: string): void;
  /** A message to the running codon's agent (codon.message). */
  message(text: string): void;
  listCheckpoints(): void;
  rollback(target: RollbackChoice, autoRestart: boolean): void;
  /** A comment on lines of a codon's diff (review.comment; docs/review.md). */
  reviewComment(comment: CommandInput<'review.comment'>): void;
  /** Sends a codon's comments on (review.submit): those named, else every one not sent yet. */
  reviewSubmit(codonId: string, to: ReviewTarget, options?: { note?: string; commentIds?: string[] }): void;
  /** Approves the codon the run waits on (approval.approve, docs/review.md#approval-gates). */
  approve(codonId: string, note?: string): void;
};

const REVIEW_TARGET_LABEL: Record<ReviewTarget, string> = {
  redo: 'redo it with them',
  message: 'message the running agent',
  next: 'carry them into the next codon',
};

export const DEFAULT_STOP_REASON = 'stopped from the terminal UI';

export function createActions(client: ClientPort, dispatch: (action: StoreAction) => void): ClientActions {
  let unsent = 0;
  const send = <T extends CommandType>(
    type: T,
    data: CommandInput<T> | undefined,
    label: string,
    rollbackTarget?: string,
  ) => {
    const text = type === 'codon.message' ? (data as CommandInput<'codon.message'>).text : undefined;
    try {
      const id = client.send(type, data);
      dispatch({
        kind: 'commandSent',
        id,
        type,
        label,
        ...(rollbackTarget ? { rollbackTarget } : {}),
        ...(text === undefined ? {} : { text }),
      });
    } catch (error) {
      const message = (error as Error).message;
      const kept = text === undefined ? {} : { text, id: `not-sent-${++unsent}` };
      dispatch({ kind: 'commandNotSent', type, label, message, ...kept });
    }
  };
  return {
    next: () => send('codon.next', undefined, 'start the next codon'),
    skip: () => send('codon.skip', undefined, 'skip the running codon'),
    redo: () => send('codon.redo', undefined, 'redo the last codon'),
    start: (codonId) => send('codon.start', { codonId }, `start ${codonId}`),
    forceStop: (reason) => {
      const why = reason.trim() || DEFAULT_STOP_REASON;
      send('codon.forceStop', { reason: why }, `force stop (${why})`);
    },
    message: (text) => send('codon.message', { text }, 'message the agent'),
    listCheckpoints: () => send('checkpoint.list', {}, 'list checkpoints'),
    reviewComment: (comment) =>
      send('review.comment', comment, `comment on ${comment.codonId} ${comment.file}`),
    reviewSubmit: (codonId, to, options = {}) =>
      send(
        'review.submit',
        {
          codonId,
          to,
          ...(options.note?.trim() ? { note: options.note } : {}),
          ...(options.commentIds?.length ? { commentIds: options.commentIds } : {}),
        },
        `send the review of ${codonId}: ${REVIEW_TARGET_LABEL[to]}`,
      ),
    approve: (codonId, note) => {
      const said = note?.trim();
      send('approval.approve', { codonId, ...(said ? { note: said } : {}) }, `approve ${codonId}`);
    },
    rollback: (target, autoRestart) => {
      const label = `roll back to ${target.label}${autoRestart ? ', then restart' : ''}`;
      switch (target.kind) {
        case 'lastSuccess':
          return send('rollback.toLastSuccess', { autoRestart }, label, target.label);
        case 'codon':
          return send(
            'rollback.toCodon',
            { codonId: target.codonId, checkpointType: target.checkpointType, autoRestart },
            label,
            target.label,
          );
        case 'checkpoint':
          return send(
            'rollback.toCheckpoint',
            { checkpointSha: target.sha, autoRestart },
            label,
            target.label,
          );
      }
    },
  };
}
