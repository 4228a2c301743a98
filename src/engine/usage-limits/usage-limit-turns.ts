import type { EventInput, EventType, FailureReason, UsageLimitWait } from '../../core/protocol/index.ts';
import { resetWhen } from '../../core/time/reset-text.ts';
import type { RuntimeCodon } from '../../plan/index.ts';
import type { AfterFailure } from '../../plan/unattended-schema.ts';
import type { PendingRetry, RetryTimer, UsageWait } from '../retries/pending-retry.ts';
import { firstAttempt, type NextAttempt } from '../retries/retry-policy.ts';
import { decideUsageLimit, waitingMessage } from './decide.ts';
import type { LimitedAgents } from './limited-agents.ts';
import type { ResumedWait } from './pending-wait.ts';

/** A retry as the retries schedule it: its attempt, its wait, what is said first, and a usage-limit wait's details. */
export type RetryPlan = { next: NextAttempt; waitMs: number; announce: string[]; usage?: UsageWait };

/** What the usage-limit turns use of the engine and of its retries (src/engine/retrying.ts). */
export type UsageLimitCore = {
  /** Journals and broadcasts an event (the engine's recorder). */
  publish: <T extends EventType>(type: T, data: EventInput<T>) => Promise<unknown>;
  defaultModel: string;
  /** The codon as the plan has it (one that ran as its fallbackAgent is a copy with another agent). */
  planned: (codonId: string) => RuntimeCodon | undefined;
  limits: LimitedAgents;
  /** Stops (true) or restarts (false) the plan's and loops' wall clocks for a usage-limit wait. */
  clock: (codonId: string, stopped: boolean) => void;
  now: () => number;
  /** The one retry timer: a usage-limit wait is a retry that waits for a reset. */
  timer: RetryTimer<RuntimeCodon>;
  /** Announces a retry, restores the codon's start checkpoint, journals a wait, arms the timer. */
  schedule: (codon: RuntimeCodon, runId: string, plan: RetryPlan) => Promise<void>;
  /** onFailure `then` after the last attempt. */
  giveUp: (codon: RuntimeCodon, status: 'failed', afterwards: AfterFailure, why: string) => Promise<void>;
  /** What the timer calls when a retry is due. */
  due: (retry: PendingRetry<RuntimeCodon>) => void;
  info: (message: string) => Promise<unknown>;
};

/**
 * Usage limits (docs/unattended.md#usage-limits): what follows a codon that met one (its
 * fallbackAgent at once, or a wait for the reset, or onFailure), a later codon whose agent is still
 * limited, and a wait a previous server left. The waits themselves are the retries' timer.
 */
export class UsageLimitTurns {
  readonly #core: UsageLimitCore;

  constructor(core: UsageLimitCore) {
    this.#core = core;
  }

  #now(): number {
    return this.#core.now();
  }

  /** The usage-limit wait in progress, as state.snapshot carries it. */
  get usageWait(): UsageLimitWait | undefined {
    const pending = this.#core.timer.pending;
    const usage = pending?.usage;
    if (!pending || !usage) return undefined;
    return {
      codonId: pending.codon.id,
      agent: usage.agent,
      ...(usage.resetsAt === undefined ? {} : { resetsAt: new Date(usage.resetsAt).toISOString() }),
      until: new Date(usage.until).toISOString(),
    };
  }

  /**
   * A codon the rules start by themselves (autostart, the run going on): when its agent is known to
   * be limited, its fallbackAgent runs it until the reset, or the run waits for the reset first
   * (undefined: it waits). A start by a person never comes here: it starts at once.
   */
  async automaticStart(codon: RuntimeCodon): Promise<RuntimeCodon | undefined> {
    const h = this.#core;
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
      await this.#core.info(
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
    const retry = this.#core.timer.reserve(codon, firstAttempt(codon, h.defaultModel), {
      usage,
      first: true,
    });
    await this.waiting(codon.id, usage);
    if (this.#core.timer.pending === retry) this.#core.timer.arm(retry, waitUntil - now, this.#core.due);
    return undefined;
  }

  /**
   * A server that starts during a usage-limit wait its predecessor journaled (and never ended) waits
   * again until the same time: the wait is journaled anew for this server's clients, and the codon
   * starts when it is due (at once when that is past). Its agent root is at the codon's start
   * already: the recovery took the run back to its last clean point.
   */
  async resumeWait(codon: RuntimeCodon, wait: ResumedWait): Promise<void> {
    const h = this.#core;
    const usage: UsageWait = {
      agent: wait.agent,
      ...(wait.model === undefined ? {} : { model: wait.model }),
      ...(wait.resetsAt === undefined ? {} : { resetsAt: wait.resetsAt }),
      until: wait.until,
      ...(wait.detail === undefined ? {} : { detail: wait.detail }),
      clockStopped: !codon.onUsageLimit.countWait,
    };
    h.limits.limit(wait.agent, wait.resetsAt ?? wait.until);
    await this.#core.info(
      `the server stopped during a usage-limit wait: codon ${codon.id} starts again at ${resetWhen(wait.until, this.#now())}, as that wait said`,
    );
    const retry = this.#core.timer.reserve(codon, firstAttempt(codon, h.defaultModel), {
      usage,
      first: true,
    });
    await this.waiting(codon.id, usage);
    if (this.#core.timer.pending === retry)
      this.#core.timer.arm(retry, Math.max(0, wait.until - this.#now()), this.#core.due);
  }

  /**
   * The codon ended on a usage limit (docs/unattended.md#usage-limits): its fallbackAgent takes it
   * over at once, or the run waits for the reset and starts it again, each from its start checkpoint;
   * else it stays failed and onFailure `then` decides (never its backoff retries: seconds do not help).
   */
  async afterLimit(
    codon: RuntimeCodon,
    runId: string,
    attempt: NextAttempt,
    reason: FailureReason,
  ): Promise<void> {
    const h = this.#core;
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
      if (planned.onFailure.then === 'idle')
        await this.#core.info(`codon ${codon.id} failed: ${decision.why}`);
      return this.#core.giveUp(codon, 'failed', planned.onFailure.then, decision.why);
    }
    if (decision.kind === 'fallback') {
      const moved = h.limits.fallbackOf(planned, decision.fallback);
      const model = firstAttempt(moved, h.defaultModel).model;
      return this.#core.schedule(moved, runId, {
        next: next(model, false),
        waitMs: 0,
        announce: [
          `codon ${codon.id}: ${decision.why}, from its start checkpoint (attempt ${attempt.attempt + 1})`,
        ],
      });
    }
    // Back to its own agent after the wait (a fallback that met a limit too waits for both).
    const ownUntil = h.limits.isFallback(codon) ? h.limits.limitedUntil(planned.agent, now) : undefined;
    const until =
      ownUntil === undefined ? decision.until : Math.max(decision.until, ownUntil + policy.marginMs);
    const model = h.limits.isFallback(codon) ? firstAttempt(planned, h.defaultModel).model : attempt.model;
    return this.#core.schedule(planned, runId, {
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

  /** Journals the wait (usageLimit.waiting) and stops the clocks it stops. */
  async waiting(codonId: string, usage: UsageWait): Promise<void> {
    const now = this.#now();
    if (usage.clockStopped) this.#core.clock(codonId, true);
    await this.#core.publish('usageLimit.waiting', {
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
}
