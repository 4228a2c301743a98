import type { ErrorCode } from '../core/protocol/index.ts';
import { codonOf, type EngineState, runOf } from '../execution/state/reducer.ts';
import type { RuntimeCodon } from '../plan/index.ts';
import { killPoint } from '../platform/storage/kill-point.ts';
import type { Checkpointing } from './checkpointing.ts';
import type { CommandContext, EngineCommand } from './engine.ts';
import type { CodonOutcome } from './outcome/failure.ts';
import type { Recorder } from './recorder.ts';
import { type PendingRetry, RetryTimer } from './retries/pending-retry.ts';
import {
  type AfterAttempt,
  afterAttempt,
  fallbackMessage,
  type NextAttempt,
  retryMessage,
} from './retries/retry-policy.ts';
import {
  type RestoreDeps,
  type RestoreFailure,
  restoreCheckpoint,
  restoreErrorCode,
  undonePart,
} from './rollback.ts';
import type { EndStatus, IdleReason, Trigger } from './what-next.ts';

/** Refusals a command meets before it does anything: a retry it cancelled goes on (docs/unattended.md#automatic-retries-and-the-fallback-model). */
const REFUSALS: ReadonlySet<ErrorCode> = new Set<ErrorCode>([
  'UNKNOWN_CODON',
  'NO_NEXT_CODON',
  'NOTHING_TO_REDO',
  'NO_SUCCESSFUL_CODON',
  'CHECKPOINT_NOT_FOUND',
  'CHECKPOINT_AMBIGUOUS',
  'UNKNOWN_RUN',
  'BUDGET_EXCEEDED',
  'INVALID_COMMAND',
]);

/** What the retries need of the engine: its queue, its decision, its starts and its state. */
export type RetryHost = {
  autostart: boolean;
  checkpoints: Checkpointing;
  /** What writes a checkpoint back, archived files included (the rollback's path). */
  restore: RestoreDeps;
  recorder: Recorder;
  state: () => EngineState;
  /** The server is stopping (no retry starts then). */
  stopping: () => boolean;
  /** A codon is active (a command started one meanwhile). */
  active: () => boolean;
  /** Why a codon may not start now (an exhausted plan or loop budget). */
  refusal: (codonId: string) => string | undefined;
  enqueue: (task: () => Promise<void>, context?: CommandContext) => void;
  proceed: (trigger: Trigger) => Promise<void>;
  idle: (reason: IdleReason, refused?: string) => Promise<unknown>;
  startCodon: (codon: RuntimeCodon, skipPreCommands: boolean, attempt: NextAttempt) => Promise<void>;
  /** onFailure then: abort; undefined where the server cannot be stopped (the run idles instead). */
  abort?: (reason: string) => void;
};

/**
 * What follows a codon's end under its onFailure policy (docs/unattended.md#automatic-retries-and-the-fallback-model): a retry
 * (announced, the agent root back at the codon's start in the same run, a timer that any command or
 * a shutdown cancels), or `then` after the last attempt: idle, continue past it, abort the run.
 */
export class Retrying {
  readonly #h: RetryHost;
  readonly #timer = new RetryTimer<RuntimeCodon>();

  constructor(host: RetryHost) {
    this.#h = host;
  }

  /** A retry waits (the engine starts nothing else by itself meanwhile). */
  get pending(): boolean {
    return this.#timer.pending !== undefined;
  }

  /** Cancels the waiting retry (shutdown), returning it to be announced. */
  cancel(): PendingRetry<RuntimeCodon> | undefined {
    return this.#timer.cancel();
  }

  /** After a codon's end was recorded: a retry, or the decision of what runs next. */
  async afterCodon(
    codon: RuntimeCodon,
    runId: string,
    status: EndStatus,
    attempt: NextAttempt,
    outcome: CodonOutcome | undefined,
  ): Promise<void> {
    const h = this.#h;
    if (h.stopping() || h.recorder.halted) return;
    const decision = afterAttempt(codon, {
      ...attempt,
      status,
      failureReason: codonOf(runOf(h.state(), runId), codon.id)?.failureReason,
      stalled: outcome?.stalledAfterMs !== undefined,
      ...(outcome?.result?.retryAfterMs === undefined ? {} : { retryAfterMs: outcome.result.retryAfterMs }),
      apiErrorStatus: outcome?.result?.apiErrorStatus ?? null,
    });
    if (decision.kind === 'retry') return this.#schedule(codon, runId, decision);
    const afterwards = decision.kind === 'give-up' ? decision.afterwards : 'idle';
    if (decision.kind === 'give-up' && afterwards !== 'idle') {
      const what = `codon ${codon.id} failed: ${decision.why}`;
      if (afterwards === 'abort' && h.abort) {
        await this.#info(`${what}; onFailure then: abort ends the run`);
        h.abort(`onFailure then: abort after codon ${codon.id} failed`);
        return;
      }
      if (afterwards === 'continue') await this.#info(`${what}; onFailure then: continue goes on past it`);
    }
    await h.proceed({
      kind: 'codon-ended',
      status,
      autostart: h.autostart,
      ...(afterwards === 'continue' ? { passOver: true } : {}),
    });
  }

  /**
   * A command taken while a retry waits cancels it; codon.skip/forceStop then only do that
   * (`handled`). Any other command goes on with the context returned: refused before it did anything
   * (a mistyped codon id, an unknown checkpoint, a budget), it leaves the retry due when it was due;
   * any other failure hands the run back idle, never silent.
   */
  takeOver(command: EngineCommand, context: CommandContext): CommandContext | 'handled' {
    const cancelled = this.#timer.cancel();
    if (!cancelled) return context;
    const h = this.#h;
    const { codon, next } = cancelled;
    const what = `the retry of codon ${codon.id} (attempt ${next.attempt} of ${next.maxAttempts}) is cancelled by ${command.type}`;
    if (command.type === 'codon.skip' || command.type === 'codon.forceStop') {
      h.enqueue(async () => {
        await this.#info(`${what}; ${codon.id} stays failed (codon.next or codon.redo runs it again)`);
        await h.proceed({ kind: 'codon-ended', status: 'failed', autostart: h.autostart });
      }, context);
      return 'handled';
    }
    h.enqueue(() => this.#info(what).then(() => {}), context);
    return {
      ...context,
      fail: (code, message) => {
        context.fail(code, message);
        if (h.stopping() || h.active() || this.#timer.pending) return;
        if (!REFUSALS.has(code)) {
          h.enqueue(() => h.proceed({ kind: 'codon-ended', status: 'failed', autostart: h.autostart }));
          return;
        }
        const retry = this.#timer.reserve(codon, next);
        const waitMs = Math.max(0, (cancelled.dueAt ?? Date.now()) - Date.now());
        this.#timer.arm(retry, waitMs, (due) => h.enqueue(() => this.#run(due)));
        h.enqueue(async () => {
          await this.#info(
            `${command.type} was refused; the retry of codon ${codon.id} (attempt ${next.attempt} of ${next.maxAttempts}) goes on in ${(waitMs / 1000).toFixed(1)} s`,
          );
        });
      },
    };
  }

  /** Announces the retry, brings the agent root back to the codon's start, and sets the timer. */
  async #schedule(
    codon: RuntimeCodon,
    runId: string,
    decision: Extract<AfterAttempt, { kind: 'retry' }>,
  ): Promise<void> {
    const h = this.#h;
    // Pending at once: a command taken while it is announced and the tree restored cancels it.
    const retry = this.#timer.reserve(codon, decision.next);
    if (decision.switchedToFallback) await this.#info(fallbackMessage(codon.id, decision));
    await this.#info(retryMessage(codon.id, decision));
    const restored = await this.#restoreStart(codon.id, runId);
    if (restored.ok) killPoint('retry-restored');
    if (!restored.ok) {
      // Cancelled meanwhile: the command that did it has said so and decides what follows.
      if (!this.#timer.take(retry)) return;
      await h.recorder.reportError(
        restoreErrorCode(restored),
        `the retry of codon ${codon.id} is cancelled: its start checkpoint could not be restored: ${restored.message}`,
        'codon',
        codon.id,
      );
      return h.proceed({ kind: 'codon-ended', status: 'failed', autostart: h.autostart });
    }
    this.#timer.arm(retry, decision.waitMs, (due) => h.enqueue(() => this.#run(due)));
  }

  async #run(retry: PendingRetry<RuntimeCodon>): Promise<void> {
    const h = this.#h;
    if (h.stopping() || !this.#timer.take(retry)) return;
    // A plan or loop budget that ran out during the wait (its clock ticks on) holds the retry too.
    const refused = h.refusal(retry.codon.id);
    if (refused) {
      await this.#info(
        `the retry of codon ${retry.codon.id} (attempt ${retry.next.attempt} of ${retry.next.maxAttempts}) is not started: ${refused}`,
      );
      await h.idle('codon-completed', refused);
      return;
    }
    await h.startCodon(retry.codon, false, retry.next);
  }

  /**
   * The codon's start checkpoint (its latest rig-setup one, else the checkpoint before it) written
   * back into the agent root as a rollback to it does (files an earlier codon archived stay archived,
   * docs/checkpoints.md), in the same run: the failed attempt stays in the run's history
   * (its error checkpoint), and the lineage, costs and budgets go on.
   */
  async #restoreStart(codonId: string, runId: string): Promise<{ ok: true } | RestoreFailure> {
    const { checkpoints, restore } = this.#h;
    const lineage = await checkpoints.lineage(runId);
    if (!lineage.ok) return { ok: false, message: lineage.error.message };
    const start = checkpoints.byCodon(lineage.value, codonId, 'start');
    if (!start.ok) return { ok: false, message: start.error.message };
    const restored = await restoreCheckpoint(restore, start.value, undonePart(lineage.value, start.value));
    return restored.ok ? { ok: true } : restored;
  }

  #info(message: string): Promise<unknown> {
    return this.#h.recorder.publish('info', { message });
  }
}
