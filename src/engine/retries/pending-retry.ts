import type { NextAttempt } from './retry-policy.ts';

/** A retry that waits for a usage limit to reset (docs/unattended.md#usage-limits): what usageLimit.waiting said. */
export type UsageWait = {
  agent: string;
  model?: string;
  resetsAt?: number;
  until: number;
  detail?: string;
  /** The plan's and loops' wall clocks stand still meanwhile (onUsageLimit countWait false). */
  clockStopped: boolean;
};

export type PendingRetry<C> = {
  codon: C;
  next: NextAttempt;
  /** Set when the retry waits for a usage limit's reset. */
  usage?: UsageWait;
  /** The codon's first start (a later codon that waits for its agent's limit): not an automatic attempt. */
  first?: boolean;
  /** When its timer is due (epoch ms), once armed. */
  dueAt?: number;
};

/**
 * The one retry waiting for its time (docs/unattended.md#automatic-retries-and-the-fallback-model). It is
 * pending from the moment it is decided (before it is announced and the agent root restored), so a
 * command taken meanwhile cancels it; the wait is a timer armed after that, never a task in the
 * engine queue. `due` is called when the time has come; it must check `take` still holds the same
 * retry (a command may have cancelled it after the timer fired and before its turn came).
 */
export class RetryTimer<C> {
  #pending: { retry: PendingRetry<C>; timer?: NodeJS.Timeout } | undefined;

  get pending(): PendingRetry<C> | undefined {
    return this.#pending?.retry;
  }

  /** The retry is decided: pending from now on, its timer not yet running. */
  reserve(
    codon: C,
    next: NextAttempt,
    extra: Pick<PendingRetry<C>, 'usage' | 'first'> = {},
  ): PendingRetry<C> {
    this.cancel();
    const retry = { codon, next, ...extra };
    this.#pending = { retry };
    return retry;
  }

  /** Starts the wait of a reserved retry; false when it was cancelled meanwhile. */
  arm(retry: PendingRetry<C>, waitMs: number, due: (retry: PendingRetry<C>) => void): boolean {
    const pending = this.#pending;
    if (pending?.retry !== retry) return false;
    clearTimeout(pending.timer);
    retry.dueAt = Date.now() + waitMs;
    pending.timer = setTimeout(() => due(retry), waitMs);
    return true;
  }

  /** Takes the retry to start it, if it is still the one pending. */
  take(retry: PendingRetry<C>): boolean {
    if (this.#pending?.retry !== retry) return false;
    clearTimeout(this.#pending.timer);
    this.#pending = undefined;
    return true;
  }

  /** Cancels the pending retry; returns it (undefined when none was pending). */
  cancel(): PendingRetry<C> | undefined {
    const pending = this.#pending;
    if (!pending) return undefined;
    clearTimeout(pending.timer);
    this.#pending = undefined;
    return pending.retry;
  }
}
