import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { ClientCommand, EventInput, MessageSender, ReviewComment } from '../core/protocol/index.ts';
import { err, ok, type Result } from '../core/result.ts';
import { type EngineState, latestRunId } from '../execution/state/reducer.ts';
import type { RuntimeCodon } from '../plan/index.ts';
import type { LoadedPlan } from '../plan/loaded-plan.ts';
import type { CarriedMessage } from './carry-over.ts';
import type { Checkpointing } from './checkpointing.ts';
import type { CodonLifecycle } from './codon-lifecycle.ts';
import type { CommandContext } from './engine.ts';
import type { DeliveryOutcome } from './message-delivery.ts';
import type { ReviewReads } from './review/review-journal.ts';
import { reviewText, tooBigMessage } from './review/review-text.ts';
import { selectComments } from './review/select.ts';
import { type Failure, makeComment } from './review-comment.ts';
import type { RollbackAdmission } from './rollback-admission.ts';
import type { Moved } from './rollbacks.ts';
import { unknownCodonMessage } from './unknown-codon.ts';
import { type IdleReason, lineageOf, nextCodon } from './what-next.ts';

type Command<T extends ClientCommand['type']> = Extract<ClientCommand, { type: T }>;

/** What reviews use of the orchestrator: its state and checkpoints, its stops, rollbacks and starts. */
export type ReviewHost = {
  plan: LoadedPlan;
  state: () => EngineState;
  lifecycle: Pick<CodonLifecycle, 'active' | 'stopActive' | 'stopRefusal'>;
  checkpoints: Checkpointing;
  admission: RollbackAdmission;
  reviews: ReviewReads;
  logger: Logger;
  stopping: () => boolean;
  enqueue: (task: () => Promise<void>, context?: CommandContext) => void;
  publish: <T extends 'review.comment' | 'review.sent'>(type: T, data: EventInput<T>) => Promise<unknown>;
  sendMessage: (text: string, from: MessageSender) => DeliveryOutcome;
  /** Rolls the current run back to codon `codonId`'s start (a new run, as rollback.toCodon start). */
  rollBackToStart: (codonId: string) => Promise<Moved>;
  /** Starts a codon with `said` added to its prompt. */
  startCodon: (codon: RuntimeCodon, said: readonly CarriedMessage[]) => Promise<void>;
  budgetRefusal: (codonId: string) => string | undefined;
  idle: (reason: IdleReason, refused?: string) => Promise<unknown>;
};

/** A review ready to go: the comments it sends and its text as the agent reads it. */
type Review = { codonId: string; comments: ReviewComment[]; text: string; by: MessageSender };

export type ReviewRoutes = {
  comment(command: Command<'review.comment'>, context: CommandContext): void;
  submit(command: Command<'review.submit'>, context: CommandContext): void;
  /** Why review.submit would be refused now (its comments, its size); checked before it ends an approval wait. */
  refusal(command: Command<'review.submit'>): Failure | undefined;
};

/**
 * review.comment and review.submit (docs/review.md). A comment is a read of the shadow repository and
 * one journaled event: never behind the queue. A review is journaled (review.sent) before it acts:
 * `message` hands it to the running agent at once, as codon.message does; `next` leaves it in the
 * journal for the next codon's start (Orchestrator#startCodon reads it); `redo` takes its turn in the
 * queue, like codon.redo.
 */
export function reviewRoutes(h: ReviewHost): ReviewRoutes {
  const failed = (context: CommandContext, what: string) => (error: unknown) => {
    h.logger.error({ err: error }, `${what} failed`);
    context.fail('INTERNAL_ERROR', `${what} failed: ${(error as Error).message}`);
  };
  return {
    refusal: (command) => {
      const review = prepare(h, command, { kind: 'client', clientId: '' });
      return review.ok ? undefined : review.error;
    },
    comment: (command, context) => {
      const author: MessageSender = { kind: 'client', clientId: context.clientId };
      makeComment(commentDeps(h), command.data, author)
        .then((made) => (made.ok ? undefined : context.fail(made.error.code, made.error.message)))
        .catch(failed(context, 'review.comment'));
    },
    submit: (command, context) => {
      const by: MessageSender = { kind: 'client', clientId: context.clientId };
      const { to } = command.data;
      if (to === 'redo') {
        h.enqueue(async () => {
          if (h.stopping())
            return context.fail('SHUTTING_DOWN', 'the server is shutting down; no new work is taken');
          const review = prepare(h, command, by);
          if (!review.ok) return context.fail(review.error.code, review.error.message);
          await redo(h, review.value, context);
        }, context);
        return;
      }
      const review = prepare(h, command, by);
      if (!review.ok) return context.fail(review.error.code, review.error.message);
      (to === 'message' ? message(h, review.value, context) : next(h, review.value)).catch(
        failed(context, 'review.submit'),
      );
    },
  };
}

/** What a comment needs of the host (a sentinel's `comment` action uses the same). */
export function commentDeps(h: Pick<ReviewHost, 'plan' | 'state' | 'checkpoints' | 'lifecycle' | 'publish'>) {
  return {
    planName: h.plan.name,
    planCodonIds: h.plan.codons.map((c) => c.id),
    state: h.state,
    checkpoints: h.checkpoints,
    running: () => h.lifecycle.active?.id,
    publish: (type: 'review.comment', data: EventInput<'review.comment'>) => h.publish(type, data),
  };
}

/** The comments a review sends and its text; refused when the codon or a comment is unknown. */
function prepare(
  h: ReviewHost,
  command: Command<'review.submit'>,
  by: MessageSender,
): Result<Review, Failure> {
  const { codonId, commentIds, note } = command.data;
  const comments = h.reviews.comments(codonId);
  if (comments.length === 0 && !h.plan.codons.some((c) => c.id === codonId)) {
    const ids = h.plan.codons.map((c) => c.id);
    return err({ code: 'UNKNOWN_CODON', message: unknownCodonMessage(codonId, h.plan.name, ids) });
  }
  const chosen = selectComments(codonId, comments, {
    sentIds: h.reviews.sentIds(codonId),
    earlierIds: h.reviews.earlierIds(codonId),
    named: commentIds,
  });
  if (!chosen.ok) return chosen;
  const text = reviewText({ codonId, note, comments: chosen.value });
  if (text === undefined)
    return err({ code: 'INVALID_COMMAND', message: tooBigMessage(chosen.value.length) });
  return ok({ codonId, comments: chosen.value, text, by });
}

function sent(h: ReviewHost, r: Review, to: 'redo' | 'message' | 'next', targetCodonId: string | undefined) {
  return h.publish('review.sent', {
    reviewId: `review-${randomUUID()}`,
    codonId: r.codonId,
    to,
    commentIds: r.comments.map((c) => c.commentId),
    text: r.text,
    ...(targetCodonId === undefined ? {} : { targetCodonId }),
    by: r.by,
  });
}

/** `message`: to the running agent, as codon.message (its rate and queue limits too). */
async function message(h: ReviewHost, r: Review, ctx: CommandContext): Promise<void> {
  const active = h.lifecycle.active?.id;
  if (!active)
    return ctx.fail(
      'NO_CODON_RUNNING',
      `no codon is running to take the review as a message; send it to next (the next codon's prompt) or redo (codon ${r.codonId} again from its start)`,
    );
  // Journaled first, then handed over: the journal says the review before the message that carries it.
  const journaled = sent(h, r, 'message', active);
  const delivered = h.sendMessage(r.text, r.by);
  await journaled;
  if (!delivered.ok)
    ctx.fail(delivered.code, `${delivered.message} (the review journaled as sent did not reach the agent)`);
}

/** `next`: journaled only; the next codon to start takes it into its prompt (pendingNext). */
async function next(h: ReviewHost, r: Review): Promise<void> {
  const active = h.lifecycle.active?.id;
  const lineage = lineageOf(h.state());
  // While a codon runs, the next codon is the one after it.
  const after = active
    ? { endings: [...lineage.endings, { codonId: active, status: 'completed' as const }] }
    : lineage;
  await sent(h, r, 'next', nextCodon(h.plan.codons, after)?.id);
}

/**
 * `redo`: the codon again from its start checkpoint, the review in its prompt. Running: it is stopped
 * and rolled back at its end (as a sentinel's redo); ended: the run goes back to its start (a new run;
 * nothing to undo right after a rollback to it), then it starts.
 */
async function redo(h: ReviewHost, r: Review, ctx: CommandContext): Promise<void> {
  const codon = h.plan.codons.find((c) => c.id === r.codonId);
  if (!codon) {
    const ids = h.plan.codons.map((c) => c.id);
    return ctx.fail(
      'UNKNOWN_CODON',
      `${unknownCodonMessage(r.codonId, h.plan.name, ids)}: it cannot run again (send the review to next)`,
    );
  }
  const said: CarriedMessage[] = [{ text: r.text, from: r.by }];
  const active = h.lifecycle.active?.id;
  if (active !== undefined && active !== codon.id)
    return ctx.fail(
      'CODON_RUNNING',
      `codon ${active} is running; a redo of ${codon.id} rolls back past it: stop it first (codon.forceStop), or send the review to next or message`,
    );
  const budget = h.budgetRefusal(codon.id);
  if (budget) return ctx.fail('BUDGET_EXCEEDED', budget);
  if (active === codon.id) {
    const refused = h.admission.sentinelRefusal() ?? h.lifecycle.stopRefusal(codon.id);
    if (refused) return ctx.fail('CODON_STOPPING', `the review is not sent: ${refused}`);
    await sent(h, r, 'redo', codon.id);
    const stopped = h.lifecycle.stopActive(
      'forceStop',
      `by a client, to redo it with a review (${r.comments.length} comments)`,
    );
    if (!stopped) return ctx.fail('CODON_STOPPING', `codon ${codon.id} is already being stopped`);
    stopped.catch((error: unknown) =>
      h.logger.error({ err: error }, 'stopping a codon for a review redo failed'),
    );
    h.admission.hold(codon.id, {
      run: () => fromStart(h, codon, said, ctx),
      drop: (why) => ctx.fail('INTERNAL_ERROR', `the redo did not happen: ${why}`),
    });
    return;
  }
  const start = await startCheckpoint(h, codon.id);
  if (!start.ok) return ctx.fail(start.error.code, start.error.message);
  await sent(h, r, 'redo', codon.id);
  await fromStart(h, codon, said, ctx);
}

/** The codon has a start to go back to (or the run is right at it). */
async function startCheckpoint(h: ReviewHost, codonId: string): Promise<Result<true, Failure>> {
  if (lineageOf(h.state()).atStartOf === codonId) return ok(true);
  const runId = latestRunId(h.state());
  if (!runId)
    return err({
      code: 'NOTHING_TO_REDO',
      message: `codon ${codonId} has not run yet; start it with codon.start`,
    });
  const lineage = await h.checkpoints.lineage(runId);
  if (!lineage.ok) return lineage;
  const found = h.checkpoints.byCodon(lineage.value, codonId, 'start');
  return found.ok
    ? ok(true)
    : err({ code: 'NOTHING_TO_REDO', message: `${found.error.message} Start it with codon.start.` });
}

async function fromStart(h: ReviewHost, codon: RuntimeCodon, said: CarriedMessage[], ctx: CommandContext) {
  if (h.stopping()) return ctx.fail('SHUTTING_DOWN', 'the server is shutting down; the redo did not happen');
  if (lineageOf(h.state()).atStartOf !== codon.id) {
    const moved = await h.rollBackToStart(codon.id);
    if (!moved.ok) {
      ctx.fail(moved.code, `the redo did not happen: ${moved.message}`);
      return void (await h.idle('codon-completed'));
    }
  }
  return h.startCodon(codon, said);
}
