import type { FailureReason } from '../../core/protocol/index.ts';
import type { AfterFailure, OnFailure } from '../../plan/unattended-schema.ts';
import { DEFAULT_BACKOFF_MS, DEFAULT_MAX_BACKOFF_MS } from '../../plan/unattended-schema.ts';

/**
 * What happens after one attempt of a codon (docs/unattended.md#automatic-retries-and-the-fallback-model).
 * Pure: the orchestrator asks it after `lifecycle.finish` and does the waiting, the restore and the
 * start.
 *
 * - Retried: rate-limit, api-error marked retriable, a stall. Never a budget stop, a failed
 *   verification gate, forceStop, skip, a wall-clock timeout, an agent that could not start.
 * - The wait before attempt N+1 is backoffMs * 2^(N-1), capped at maxBackoffMs; a provider's
 *   retry-after is honoured (the wait is at least that, even past the cap).
 * - Fallback model: an attempt that failed for load (rate-limit, overload) was retried by the agent
 *   itself to its limit, so every remaining attempt uses `fallbackModel`; a codon with a fallback
 *   model gets at least one attempt with it (one extra attempt when it has no retry policy).
 * - After the last attempt: `then` (idle, continue, abort). A budget stop always idles (the run
 *   does not go on by itself); a codon stopped or skipped by a client is never subject to `then`.
 */

export type CodonPolicy = {
  id: string;
  onFailure: OnFailure;
  fallbackModel?: string;
};

/** The attempt that just ended: its number, its model, and how it ended. */
export type AttemptEnd = {
  attempt: number;
  model: string;
  /** The fallback model has run (or runs) for this codon in this retry chain. */
  onFallback: boolean;
  status: 'completed' | 'failed' | 'skipped' | 'stopped';
  failureReason?: FailureReason;
  /** The agent printed nothing for stallTimeoutMs and was stopped. */
  stalled: boolean;
  /** The provider's retry-after, when the agent reported one. */
  retryAfterMs?: number;
  /** HTTP status of the API error that ended the attempt, when there was one. */
  apiErrorStatus?: number | null;
};

export type NextAttempt = { attempt: number; maxAttempts: number; model: string; onFallback: boolean };

export type AfterAttempt =
  /** Nothing for the retry policy to do: the codon succeeded, or a client stopped or skipped it. */
  | { kind: 'none' }
  | {
      kind: 'retry';
      next: NextAttempt;
      waitMs: number;
      /** The model changes to the fallback with this attempt. */
      switchedToFallback: boolean;
      why: string;
    }
  | { kind: 'give-up'; afterwards: AfterFailure; why: string; attempts: number };

/** The first attempt of a codon (a start by a client, autostart, `then: continue`). */
export function firstAttempt(codon: CodonPolicy & { model?: string }, defaultModel: string): NextAttempt {
  return {
    attempt: 1,
    maxAttempts: codon.onFailure.retry?.maxAttempts ?? 1,
    model: codon.model ?? defaultModel,
    onFallback: false,
  };
}

/** Whether codon.started carries attempt, maxAttempts and model: the codon can be retried, or is. */
export function showsAttempts(codon: CodonPolicy, next: NextAttempt): boolean {
  return codon.onFailure.retry !== undefined || codon.fallbackModel !== undefined || next.attempt > 1;
}

/** A failure worth another attempt. */
export function isRetriable(end: Pick<AttemptEnd, 'failureReason' | 'stalled'>): boolean {
  const reason = end.failureReason;
  if (!reason) return false;
  if (reason.type === 'rate-limit') return true;
  if (reason.type === 'api-error') return reason.retriable;
  return reason.type === 'timeout' && end.stalled;
}

/** A failure for load: the provider refused (429) or was overloaded (529, overloaded_error). */
export function isLoadFailure(end: Pick<AttemptEnd, 'failureReason' | 'apiErrorStatus'>): boolean {
  const reason = end.failureReason;
  if (!reason) return false;
  if (reason.type === 'rate-limit') return true;
  if (reason.type !== 'api-error') return false;
  return end.apiErrorStatus === 529 || /overloaded/i.test(reason.message ?? '');
}

/** The wait before attempt `failed + 1`: doubling backoff, capped, at least the retry-after. */
export function backoffMs(
  retry: { backoffMs: number; maxBackoffMs: number } | undefined,
  failed: number,
  retryAfterMs?: number,
): number {
  const base = retry?.backoffMs ?? DEFAULT_BACKOFF_MS;
  const cap = retry?.maxBackoffMs ?? DEFAULT_MAX_BACKOFF_MS;
  const doubled = Math.min(base * 2 ** Math.max(0, failed - 1), cap);
  return Math.max(doubled, retryAfterMs ?? 0);
}

export function afterAttempt(codon: CodonPolicy, end: AttemptEnd): AfterAttempt {
  if (end.status !== 'failed') return { kind: 'none' };
  const reason = end.failureReason;
  const load = isLoadFailure(end);
  const label =
    reason?.type === 'timeout' && end.stalled
      ? 'stall'
      : load && reason?.type === 'api-error'
        ? 'overload'
        : (reason?.type ?? 'unknown');
  const afterwards: AfterFailure = reason?.type === 'budget' ? 'idle' : codon.onFailure.then;
  const giveUp = (why: string): AfterAttempt => ({ kind: 'give-up', afterwards, why, attempts: end.attempt });
  if (!isRetriable(end)) return giveUp(`${label} is not retried`);
  const retry = codon.onFailure.retry;
  const fallback = codon.fallbackModel;
  const toFallback = load && fallback !== undefined && !end.onFallback;
  const policyMax = retry?.maxAttempts ?? 1;
  const maxAttempts = toFallback ? Math.max(policyMax, end.attempt + 1) : policyMax;
  if (end.attempt >= maxAttempts)
    return giveUp(`${end.attempt} attempt${end.attempt === 1 ? '' : 's'} failed (${label})`);
  const onFallback = end.onFallback || toFallback;
  return {
    kind: 'retry',
    next: {
      attempt: end.attempt + 1,
      maxAttempts,
      model: onFallback && fallback !== undefined ? fallback : end.model,
      onFallback,
    },
    waitMs: backoffMs(retry, end.attempt, end.retryAfterMs),
    switchedToFallback: toFallback,
    why: label,
  };
}

/** "4", "1.5", "0": seconds for messages. */
export function seconds(ms: number): string {
  return String(Math.round(ms / 100) / 10);
}

/** The info event of a retry due: "codon X failed (rate-limit); attempt 2 of 3 in 4 s". */
export function retryMessage(codonId: string, decision: Extract<AfterAttempt, { kind: 'retry' }>): string {
  const { next } = decision;
  return `codon ${codonId} failed (${decision.why}); attempt ${next.attempt} of ${next.maxAttempts} in ${seconds(decision.waitMs)} s`;
}

/** The info event of the switch: "switching codon X to fallback model M after rate-limit". */
export function fallbackMessage(codonId: string, decision: Extract<AfterAttempt, { kind: 'retry' }>): string {
  return `switching codon ${codonId} to fallback model ${decision.next.model} after ${decision.why}`;
}
