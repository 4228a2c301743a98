import type { ErrorCode, UsageLimitWait } from '../core/protocol/index.ts';
import { codonOf, type EngineState, runOf } from '../execution/state/reducer.ts';
import type { RuntimeCodon } from '../plan/index.ts';
import type { AfterFailure } from '../plan/unattended-schema.ts';
import { killPoint } from '../platform/storage/kill-point.ts';
import type { Checkpointing } from './checkpointing.ts';
import type { CommandContext, EngineCommand } from './engine.ts';
import type { CodonOutcome } from './outcome/failure.ts';
import type { Recorder } from './recorder.ts';
import { type PendingRetry, RetryTimer } from './retries/pending-retry.ts';
import { afterAttempt, fallbackMessage, type NextAttempt, retryMessage } from './retries/retry-policy.ts';
import {
  type RestoreDeps,
  type RestoreFailure,
  restoreCheckpoint,
  restoreErrorCode,
  undonePart,
} from './rollback.ts';
import type { LimitedAgents } from './usage-limits/limited-agents.ts';
import type { ResumedWait } from './usage-limits/pending-wait.ts';
import { type RetryPlan, UsageLimitTurns } from './usage-limits/usage-limit-turns.ts';
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
  /** `attempt` undefined: a first start (a later codon that waited for its agent's limit). */
  startCodon: (
    codon: RuntimeCodon,
    skipPreCommands: boolean,
    attempt: NextAttempt | undefined,
  ) => Promise<void>;
  /** onFailure then: abort; undefined where the server cannot be stopped (the run idles instead). */
  abort?: (reason: string) => void;
  /** The model a codon without one runs with (the plan's, else the default). */
  defaultModel: string;
  /** The codon as the plan has it (one that ran as its fallbackAgent is a copy with another agent). */
  planned: (codonId: string) => RuntimeCodon | undefined;
  /** What is known of the agents' usage limits (docs/unattended.md#usage-limits). */
  limits: LimitedAgents;
  /** Stops (true) or restarts (false) the plan's and loops' wall clocks for a usage-limit wait. */
  clock: (codonId: string, stopped: boolean) => void;
  now?: () => number;
};

/**
 * What follows a codon's end under its onFailure policy (docs/unattended.md#automatic-retries-and-the-fallback-model): a retry
 * (announced, the agent root back at the codon's start in the same run, a timer that any command or
 * a shutdown cancels), or `then` after the last attempt: idle, continue past it, abort the run.
 */
export class Retrying {
  readonly #h: RetryHost;
  readonly #timer = new RetryTimer<RuntimeCodon>();
  /** Usage limits: their waits are this timer's retries (docs/unattended.md#usage-limits). */
  readonly #limits: UsageLimitTurns;

  constructor(host: RetryHost) {
    this.#h = host;
    this.#limits = new UsageLimitTurns({
      publish: (type, data) => host.recorder.publish(type, data),
      defaultModel: host.defaultModel,
      planned: host.planned,
      limits: host.limits,
      clock: host.clock,
      now: () => this.#now(),
      timer: this.#timer,
      schedule: (codon, runId, plan) => this.#schedule(codon, runId, plan),
      giveUp: (codon, status, afterwards, why) => this.#giveUp(codon, status, afterwards, why),
      due: (due) => host.enqueue(() => this.#run(due)),
      info: (message) => this.#info(message),
    });
  }

  /** The usage-limit wait in progress, as state.snapshot carries it. */
  get usageWait(): UsageLimitWait | undefined {
    return this.#limits.usageWait;
  }

  /** A codon the rules start by themselves: its fallbackAgent, or a wait, while its agent is limited (undefined: it waits). */
  automaticStart(codon: RuntimeCodon): Promise<RuntimeCodon | undefined> {
    return this.#limits.automaticStart(codon);
  }

  /** A wait a previous server journaled and nothing ended: waited for again until the same time. */
  resumeWait(codon: RuntimeCodon, wait: ResumedWait): Promise<void> {
    return this.#limits.resumeWait(codon, wait);
  }

  /**
   * A budget ran out while the run waited for a usage limit, the wait counting (countWait): the wait
   * ends at once, and the run idles held by the budget, rather than waiting hours for nothing.
   */
  async budgetRanOut(message: string): Promise<void> {
    const h = this.#h;
    const pending = this.#timer.pending;
    if (!pending?.usage || h.stopping() || h.recorder.halted) return;
    this.#timer.cancel();
    if (pending.usage.clockStopped) h.clock(pending.codon.id, false);
    await h.recorder.publish('usageLimit.ended', {
      codonId: pending.codon.id,
      how: 'budget',
      message: `the usage-limit wait before codon ${pending.codon.id} ends: ${message}`,
    });
    await h.idle('codon-completed', h.refusal(pending.codon.id) ?? message);
  }

  #now(): number {
    return (this.#h.now ?? Date.now)();
  }

  /** A retry waits (the engine starts nothing else by itself meanwhile). */
  get pending(): boolean {
    return this.#timer.pending !== undefined;
  }

  /**
   * Cancels the waiting retry (shutdown), returning it to be announced. A usage-limit wait is not
   * ended in the journal: the next server waits again until the same time.
   */
  cancel(): PendingRetry<RuntimeCodon> | undefined {
    const cancelled = this.#timer.cancel();
    if (cancelled?.usage?.clockStopped) this.#h.clock(cancelled.codon.id, false);
    return cancelled;
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
    const failureReason = codonOf(runOf(h.state(), runId), codon.id)?.failureReason;
    if (status === 'failed' && failureReason?.type === 'usage-limit')
      return this.#limits.afterLimit(codon, runId, attempt, failureReason);
    h.limits.endChain(codon.id);
    const decision = afterAttempt(codon, {
      ...attempt,
      status,
      failureReason,
      stalled: outcome?.stalledAfterMs !== undefined,
      ...(outcome?.result?.retryAfterMs === undefined ? {} : { retryAfterMs: outcome.result.retryAfterMs }),
      apiErrorStatus: outcome?.result?.apiErrorStatus ?? null,
    });
    if (decision.kind === 'retry') {
      const announce = [retryMessage(codon.id, decision)];
      if (decision.switchedToFallback) announce.unshift(fallbackMessage(codon.id, decision));
      return this.#schedule(codon, runId, { next: decision.next, waitMs: decision.waitMs, announce });
    }
    if (decision.kind === 'give-up') return this.#giveUp(codon, status, decision.afterwards, decision.why);
    await h.proceed({ kind: 'codon-ended', status, autostart: h.autostart });
  }

  /** After the last attempt: onFailure `then` (idle, continue past it, abort the run). */
  async #giveUp(
    codon: RuntimeCodon,
    status: EndStatus,
    afterwards: AfterFailure,
    why: string,
  ): Promise<void> {
    const h = this.#h;
    if (afterwards !== 'idle') {
      const what = `codon ${codon.id} failed: ${why}`;
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
    const { codon, next, usage } = cancelled;
    const what = usage
      ? `the usage-limit wait before codon ${codon.id} is ended by ${command.type}`
      : `the retry of codon ${codon.id} (attempt ${next.attempt} of ${next.maxAttempts}) is cancelled by ${command.type}`;
    if (usage?.clockStopped) h.clock(codon.id, false);
    const said = () =>
      usage
        ? h.recorder.publish('usageLimit.ended', {
            codonId: codon.id,
            how: 'command',
            command: command.type,
            message: what,
          })
        : this.#info(what);
    if (command.type === 'codon.skip' || command.type === 'codon.forceStop') {
      h.enqueue(async () => {
        if (usage) await said();
        else await this.#info(`${what}; ${codon.id} stays failed (codon.next or codon.redo runs it again)`);
        await h.proceed({ kind: 'codon-ended', status: 'failed', autostart: h.autostart });
      }, context);
      return 'handled';
    }
    h.enqueue(() => said().then(() => {}), context);
    return {
      ...context,
      fail: (code, message) => {
        context.fail(code, message);
        if (h.stopping() || h.active() || this.#timer.pending) return;
        if (!REFUSALS.has(code)) {
          h.enqueue(() => h.proceed({ kind: 'codon-ended', status: 'failed', autostart: h.autostart }));
          return;
        }
        const retry = this.#timer.reserve(codon, next, {
          ...(usage ? { usage } : {}),
          ...(cancelled.first ? { first: true } : {}),
        });
        const waitMs = Math.max(0, (cancelled.dueAt ?? Date.now()) - Date.now());
        h.enqueue(async () => {
          if (usage) {
            await this.#limits.waiting(codon.id, usage);
            await this.#info(`${command.type} was refused; the usage-limit wait goes on`);
          } else
            await this.#info(
              `${command.type} was refused; the retry of codon ${codon.id} (attempt ${next.attempt} of ${next.maxAttempts}) goes on in ${(waitMs / 1000).toFixed(1)} s`,
            );
          this.#timer.arm(retry, waitMs, (due) => h.enqueue(() => this.#run(due)));
        });
      },
    };
  }

  /**
   * Announces the retry, brings the agent root back to the codon's start, and sets the timer; a
   * usage-limit wait is journaled (usageLimit.waiting) once the tree is back, and stops the clocks.
   */
  async #schedule(codon: RuntimeCodon, runId: string, plan: RetryPlan): Promise<void> {
    const h = this.#h;
    // Pending at once: a command taken while it is announced and the tree restored cancels it.
    const retry = this.#timer.reserve(codon, plan.next, plan.usage ? { usage: plan.usage } : {});
    for (const message of plan.announce) await this.#info(message);
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
    if (plan.usage) {
      // A command may have ended the wait while the tree came back: it said so itself.
      if (this.#timer.pending !== retry) return;
      await this.#limits.waiting(codon.id, plan.usage);
    }
    this.#timer.arm(retry, plan.waitMs, (due) => h.enqueue(() => this.#run(due)));
  }

  async #run(retry: PendingRetry<RuntimeCodon>): Promise<void> {
    const h = this.#h;
    if (h.stopping() || !this.#timer.take(retry)) return;
    if (retry.usage) {
      if (retry.usage.clockStopped) h.clock(retry.codon.id, false);
      await h.recorder.publish('usageLimit.ended', {
        codonId: retry.codon.id,
        how: 'reset',
        message: `the usage-limit wait is over: codon ${retry.codon.id} starts again`,
      });
    }
    // A plan or loop budget that ran out during the wait (its clock ticks on) holds the retry too.
    const refused = h.refusal(retry.codon.id);
    if (refused) {
      await this.#info(
        `the retry of codon ${retry.codon.id} (attempt ${retry.next.attempt} of ${retry.next.maxAttempts}) is not started: ${refused}`,
      );
      await h.idle('codon-completed', refused);
      return;
    }
    await h.startCodon(retry.codon, false, retry.first ? undefined : retry.next);
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
