import type { ErrorCode, FailureReason, UsageLimitWait } from '../core/protocol/index.ts';
import { resetWhen } from '../core/time/reset-text.ts';
import { codonOf, type EngineState, runOf } from '../execution/state/reducer.ts';
import type { RuntimeCodon } from '../plan/index.ts';
import type { AfterFailure } from '../plan/unattended-schema.ts';
import { killPoint } from '../platform/storage/kill-point.ts';
import type { Checkpointing } from './checkpointing.ts';
import type { CommandContext, EngineCommand } from './engine.ts';
import type { CodonOutcome } from './outcome/failure.ts';
import type { Recorder } from './recorder.ts';
import { type PendingRetry, RetryTimer, type UsageWait } from './retries/pending-retry.ts';
import {
  afterAttempt,
  fallbackMessage,
  firstAttempt,
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
import { decideUsageLimit, waitingMessage } from './usage-limits/decide.ts';
import type { LimitedAgents } from './usage-limits/limited-agents.ts';
import type { ResumedWait } from './usage-limits/pending-wait.ts';
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

/** A retry as it is scheduled: its attempt, its wait, what is said first, and a usage-limit wait's details. */
type RetryPlan = { next: NextAttempt; waitMs: number; announce: string[]; usage?: UsageWait };

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

  constructor(host: RetryHost) {
    this.#h = host;
  }

  /** The usage-limit wait in progress, as state.snapshot carries it. */
  get usageWait(): UsageLimitWait | undefined {
    const pending = this.#timer.pending;
    const usage = pending?.usage;
    if (!pending || !usage) return undefined;
    return {
      codonId: pending.codon.id,
      agent: usage.agent,
      ...(usage.resetsAt === undefined ? {} : { resetsAt: new Date(usage.resetsAt).toISOString() }),
      until: new Date(usage.until).toISOString(),
    };
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

  /**
   * A codon the rules start by themselves (autostart, the run going on): when its agent is known to
   * be limited, its fallbackAgent runs it until the reset, or the run waits for the reset first
   * (undefined: it waits). A start by a person never comes here: it starts at once.
   */
  async automaticStart(codon: RuntimeCodon): Promise<RuntimeCodon | undefined> {
    const h = this.#h;
    const now = this.#now();
    const until = h.limits.limitedUntil(codon.agent, now);
    if (until === undefined) return codon;
    const policy = codon.onUsageLimit;
    const fallback = policy.fallbackAgent;
    const when = resetWhen(until, now);
    if (
      fallback &&
      fallback.agent !== codon.agent &&
      h.limits.limitedUntil(fallback.agent, now) === undefined
    ) {
      await this.#info(
        `${codon.agent}'s usage limit resets at ${when}: codon ${codon.id} runs with its fallbackAgent ${fallback.agent} until then`,
      );
      return h.limits.fallbackOf(codon, fallback);
    }
    const waitUntil = until + policy.marginMs;
    if (policy.then !== 'wait' || waitUntil - now > policy.maxWaitMs) return codon;
    const usage: UsageWait = {
      agent: codon.agent,
      until: waitUntil,
      resetsAt: until,
      clockStopped: !policy.countWait,
    };
    const retry = this.#timer.reserve(codon, firstAttempt(codon, h.defaultModel), { usage, first: true });
    await this.#waiting(codon.id, usage);
    if (this.#timer.pending === retry)
      this.#timer.arm(retry, waitUntil - now, (due) => h.enqueue(() => this.#run(due)));
    return undefined;
  }

  /**
   * A server that starts during a usage-limit wait its predecessor journaled (and never ended) waits
   * again until the same time: the wait is journaled anew for this server's clients, and the codon
   * starts when it is due (at once when that is past). Its agent root is at the codon's start
   * already: the recovery took the run back to its last clean point.
   */
  async resumeWait(codon: RuntimeCodon, wait: ResumedWait): Promise<void> {
    const h = this.#h;
    const usage: UsageWait = {
      agent: wait.agent,
      ...(wait.model === undefined ? {} : { model: wait.model }),
      ...(wait.resetsAt === undefined ? {} : { resetsAt: wait.resetsAt }),
      until: wait.until,
      ...(wait.detail === undefined ? {} : { detail: wait.detail }),
      clockStopped: !codon.onUsageLimit.countWait,
    };
    h.limits.limit(wait.agent, wait.resetsAt ?? wait.until);
    await this.#info(
      `the server stopped during a usage-limit wait: codon ${codon.id} starts again at ${resetWhen(wait.until, this.#now())}, as that wait said`,
    );
    const retry = this.#timer.reserve(codon, firstAttempt(codon, h.defaultModel), { usage, first: true });
    await this.#waiting(codon.id, usage);
    if (this.#timer.pending === retry)
      this.#timer.arm(retry, Math.max(0, wait.until - this.#now()), (due) => h.enqueue(() => this.#run(due)));
  }

  #now(): number {
    return (this.#h.now ?? Date.now)();
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
      return this.#usageLimit(codon, runId, attempt, failureReason);
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
   * The codon ended on a usage limit (docs/unattended.md#usage-limits): its fallbackAgent takes it
   * over at once, or the run waits for the reset and starts it again, each from its start checkpoint;
   * else it stays failed and onFailure `then` decides (never its backoff retries: seconds do not help).
   */
  async #usageLimit(
    codon: RuntimeCodon,
    runId: string,
    attempt: NextAttempt,
    reason: FailureReason,
  ): Promise<void> {
    const h = this.#h;
    const now = this.#now();
    const planned = h.planned(codon.id) ?? codon;
    const parsed = reason.resetsAt === undefined ? Number.NaN : Date.parse(reason.resetsAt);
    const resetsAt = Number.isNaN(parsed) ? undefined : parsed;
    const policy = planned.onUsageLimit;
    h.limits.limit(codon.agent, resetsAt ?? now + policy.unknownResetWaitMs);
    const decision = decideUsageLimit({
      policy,
      agent: codon.agent,
      onFallback: h.limits.isFallback(codon),
      ...(resetsAt === undefined ? {} : { resetsAt }),
      now,
      since: h.limits.since(codon.id, now),
    });
    const next = (model: string, onFallback: boolean): NextAttempt => ({
      attempt: attempt.attempt + 1,
      maxAttempts: Math.max(attempt.maxAttempts, attempt.attempt) + 1,
      model,
      onFallback,
    });
    if (decision.kind === 'fail') {
      h.limits.endChain(codon.id);
      if (planned.onFailure.then === 'idle') await this.#info(`codon ${codon.id} failed: ${decision.why}`);
      return this.#giveUp(codon, 'failed', planned.onFailure.then, decision.why);
    }
    if (decision.kind === 'fallback') {
      const moved = h.limits.fallbackOf(planned, decision.fallback);
      const model = firstAttempt(moved, h.defaultModel).model;
      return this.#schedule(moved, runId, {
        next: next(model, false),
        waitMs: 0,
        announce: [
          `codon ${codon.id}: ${decision.why}, from its start checkpoint (attempt ${attempt.attempt + 1})`,
        ],
      });
    }
    // Back to its own agent after the wait (a fallback that met a limit too waits for both).
    const ownUntil = h.limits.limitedUntil(planned.agent, now);
    const until =
      ownUntil === undefined ? decision.until : Math.max(decision.until, ownUntil + policy.marginMs);
    const model = h.limits.isFallback(codon) ? firstAttempt(planned, h.defaultModel).model : attempt.model;
    return this.#schedule(planned, runId, {
      next: next(model, attempt.onFallback && !h.limits.isFallback(codon)),
      waitMs: until - now,
      announce: [],
      usage: {
        agent: codon.agent,
        ...(codon.model === undefined ? {} : { model: codon.model }),
        ...(resetsAt === undefined ? {} : { resetsAt }),
        until,
        ...(reason.message ? { detail: reason.message } : {}),
        clockStopped: !policy.countWait,
      },
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
        await said();
        if (!usage) await this.#info(`${codon.id} stays failed (codon.next or codon.redo runs it again)`);
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
            await this.#waiting(codon.id, usage);
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
      await this.#waiting(codon.id, plan.usage);
    }
    this.#timer.arm(retry, plan.waitMs, (due) => h.enqueue(() => this.#run(due)));
  }

  /** Journals the wait (usageLimit.waiting) and stops the clocks it stops. */
  async #waiting(codonId: string, usage: UsageWait): Promise<void> {
    const now = this.#now();
    if (usage.clockStopped) this.#h.clock(codonId, true);
    await this.#h.recorder.publish('usageLimit.waiting', {
      codonId,
      agent: usage.agent,
      ...(usage.model === undefined ? {} : { model: usage.model }),
      ...(usage.resetsAt === undefined ? {} : { resetsAt: new Date(usage.resetsAt).toISOString() }),
      until: new Date(usage.until).toISOString(),
      waitMs: Math.max(0, Math.round(usage.until - now)),
      ...(usage.detail === undefined ? {} : { detail: usage.detail }),
      message: waitingMessage(usage.agent, codonId, usage.resetsAt, usage.until, now),
    });
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
