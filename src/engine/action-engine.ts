import type { Logger } from 'pino';
import type { RuntimeCodon } from '../plan/index.ts';
import type { CarriedMessage } from './carry-over.ts';
import type { CodonLifecycle } from './codon-lifecycle.ts';
import type { ActionEngine, ActionResult, SentinelSender } from './ports.ts';
import type { RollbackAdmission } from './rollback-admission.ts';
import type { Moved } from './rollbacks.ts';
import type { IdleReason, Trigger } from './what-next.ts';

/** What sentinel actions use of the orchestrator: its stops, its rollback, its decision. */
export type ActionHost = {
  stopping: () => boolean;
  lifecycle: Pick<CodonLifecycle, 'stopRefusal' | 'stopActive'>;
  admission: RollbackAdmission;
  logger: Logger;
  /** Rolls the current run back to codon `codonId`'s start (a new run, as rollback.toCodon start). */
  rollBackToStart: (codonId: string) => Promise<Moved>;
  proceed: (trigger: Trigger) => Promise<void>;
  idle: (reason: IdleReason, refused?: string) => Promise<unknown>;
  codon: (codonId: string) => RuntimeCodon | undefined;
  budgetRefusal: (codonId: string) => string | undefined;
  /** Starts a codon with `said` added to its prompt (a redo's text). */
  startCodon: (codon: RuntimeCodon, said: readonly CarriedMessage[]) => Promise<void>;
  /** A review comment on the codon's diff, once its end is recorded (review-comment.ts). */
  comment: ActionEngine['comment'];
};

type Redo = { text: string | undefined; from: SentinelSender };

/**
 * The engine's side of sentinel actions (docs/sentinels.md#sentinel-actions). A halt stops the codon like
 * codon.forceStop (its failureReason reads `stopped ${why}`). A rollback or redo stops it the same
 * way and is admitted at once (the server refuses state changes from then on, as for a client's
 * rollback); once the codon's end is recorded it rolls back to the codon's start (a new run), then
 * idles, or (redo) runs the codon again with the redo's text added to its prompt. What fails after
 * it was taken is handed to `failed`, and the server idles.
 */
export function actionEngine(h: ActionHost): ActionEngine {
  const stopRefusal = (codonId: string) =>
    h.stopping() ? 'the server is shutting down' : h.lifecycle.stopRefusal(codonId);

  /** Stops the codon for a sentinel; undefined when it did, else why not. */
  const stop = (codonId: string, why: string, what: string): string | undefined => {
    const refused = stopRefusal(codonId);
    if (refused) return refused;
    const stopped = h.lifecycle.stopActive('forceStop', why);
    if (!stopped) return `codon ${codonId} is already being stopped`;
    stopped.catch((error: unknown) => h.logger.error({ err: error }, `a sentinel ${what} failed`));
    return undefined;
  };

  const rollBack = (codonId: string, why: string, redo: Redo | undefined, failed: (m: string) => void) => {
    const refused = h.admission.sentinelRefusal() ?? stop(codonId, why, 'stop');
    if (refused) return { ok: false, message: refused } satisfies ActionResult;
    h.admission.hold(codonId, {
      run: () => followUp(h, codonId, redo, failed),
      drop: (reason) => failed(`the rollback did not happen: ${reason}`),
    });
    return { ok: true } satisfies ActionResult;
  };

  return {
    halt: (codonId, why) => {
      const refused = stop(codonId, why, 'halt');
      return refused ? { ok: false, message: refused } : { ok: true };
    },
    rollback: (codonId, why, failed) => rollBack(codonId, why, undefined, failed),
    redo: (codonId, why, text, failed, from) => rollBack(codonId, why, { text, from }, failed),
    comment: (codonId, comment, from, failed) =>
      h.stopping()
        ? { ok: false, message: 'the server is shutting down' }
        : h.comment(codonId, comment, from, failed),
  };
}

/** Runs in the codon's end's own task, in place of the usual decision (no idle in between, no command slipping in). */
async function followUp(
  h: ActionHost,
  codonId: string,
  redo: Redo | undefined,
  failed: (message: string) => void,
): Promise<void> {
  if (h.stopping()) return failed('the server is shutting down');
  const moved = await h.rollBackToStart(codonId);
  if (!moved.ok) {
    failed(`${moved.code}: ${moved.message}`);
    return void (await h.idle('codon-completed'));
  }
  if (!redo) return h.proceed({ kind: 'rollback', autoRestart: false });
  const codon = h.codon(codonId);
  const budget = codon ? h.budgetRefusal(codon.id) : `codon ${codonId} is not in the plan`;
  if (!codon || budget) {
    failed(`codon ${codonId} was rolled back but not run again: ${budget}`);
    return void (await h.idle('codon-completed', budget));
  }
  // The sentinel's text reaches the agent in the new run's prompt.
  return h.startCodon(codon, redo.text === undefined ? [] : [{ text: redo.text, from: redo.from }]);
}
