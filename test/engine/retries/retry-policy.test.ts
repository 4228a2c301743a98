// biome-ignore-all lint/suspicious/noThenProperty: onFailure's plan field is named `then`.
import { describe, expect, it } from 'vitest';
import type { FailureReason } from '../../../src/core/protocol/index.ts';
import { type CodonOutcome, classifyOutcome } from '../../../src/engine/outcome/failure.ts';
import {
  type AttemptEnd,
  afterAttempt,
  backoffMs,
  type CodonPolicy,
  fallbackMessage,
  firstAttempt,
  isRetriable,
  retryMessage,
} from '../../../src/engine/retries/retry-policy.ts';

const retry = { maxAttempts: 3, backoffMs: 1000, maxBackoffMs: 3000 };
const codon = (over: Partial<CodonPolicy> = {}): CodonPolicy => ({
  id: 'c',
  onFailure: { retry, then: 'idle' },
  ...over,
});
const failed = (reason: FailureReason, over: Partial<AttemptEnd> = {}): AttemptEnd => ({
  attempt: 1,
  model: 'm1',
  onFallback: false,
  status: 'failed',
  failureReason: reason,
  stalled: false,
  ...over,
});
const api500: FailureReason = { type: 'api-error', retriable: true, message: '500 api_error: boom' };
const rate: FailureReason = { type: 'rate-limit', retriable: true, message: '429 rate_limit_error' };

describe('backoff', () => {
  it('doubles per attempt and stops at the cap', () => {
    expect([1, 2, 3, 4].map((n) => backoffMs(retry, n))).toEqual([1000, 2000, 3000, 3000]);
  });
  it('waits at least what the provider asked, even past the cap', () => {
    expect(backoffMs(retry, 1, 500)).toBe(1000);
    expect(backoffMs(retry, 1, 7000)).toBe(7000);
  });
  it('uses the schema defaults without a retry policy', () => {
    expect(backoffMs(undefined, 1)).toBe(5000);
  });
});

describe('which failures are retried', () => {
  it('retries rate-limit, retriable api errors and stalls', () => {
    for (const end of [
      failed(rate),
      failed(api500),
      failed({ type: 'timeout', retriable: true, message: 'the agent stalled' }, { stalled: true }),
    ]) {
      expect(afterAttempt(codon(), end)).toMatchObject({
        kind: 'retry',
        next: { attempt: 2, maxAttempts: 3 },
      });
    }
  });
  it('never retries a budget stop, a gate, a wall-clock timeout, a 400 or an agent that did not start', () => {
    for (const reason of [
      { type: 'budget', retriable: false },
      { type: 'verify', retriable: false },
      { type: 'timeout', retriable: false, message: 'the codon ran past its timeoutMs' },
      { type: 'api-error', retriable: false, message: '400 invalid_request_error' },
      { type: 'unknown', retriable: false, message: 'the agent could not be started: ENOENT' },
    ] satisfies FailureReason[]) {
      expect(afterAttempt(codon(), failed(reason))).toMatchObject({ kind: 'give-up' });
    }
  });
  it('failureReason.retriable says whether a retry policy retries it: true only where it does', () => {
    const ended = { exit: { type: 'success' as const }, timedOut: false };
    const result = (over: Partial<NonNullable<CodonOutcome['result']>> = {}) => ({
      isError: true,
      apiErrorStatus: null,
      message: 'boom',
      ...over,
    });
    const outcomes: Array<[string, CodonOutcome, boolean]> = [
      ['429', { ...ended, result: result({ apiErrorStatus: 429 }) }, true],
      ['500', { ...ended, result: result({ apiErrorStatus: 500 }) }, true],
      ['529', { ...ended, result: result({ apiErrorStatus: 529 }) }, true],
      ['a stall', { ...ended, exit: { type: 'killed', signal: 'SIGTERM' }, stalledAfterMs: 5000 }, true],
      ['400', { ...ended, result: result({ apiErrorStatus: 400 }) }, false],
      [
        'spawn ENOENT',
        { ...ended, exit: { type: 'error', code: -2 }, startFailure: 'spawn claude ENOENT' },
        false,
      ],
      ['forceStop', { ...ended, exit: { type: 'killed', signal: 'SIGTERM' }, stoppedBy: 'forceStop' }, false],
      ['skip', { ...ended, exit: { type: 'killed', signal: 'SIGTERM' }, stoppedBy: 'skip' }, false],
      ['budget', { ...ended, exit: { type: 'killed', signal: 'SIGTERM' }, stoppedBy: 'budget' }, false],
      ['timeoutMs', { ...ended, exit: { type: 'killed', signal: 'SIGTERM' }, timedOut: true }, false],
      ['exit code 1', { ...ended, exit: { type: 'error', code: 1 } }, false],
      ['an error result', { ...ended, result: result() }, false],
      ['no result', ended, false],
    ];
    for (const [what, outcome, retried] of outcomes) {
      const reason = classifyOutcome(outcome).failureReason;
      expect([what, reason?.retriable]).toEqual([what, retried]);
      const stalled = outcome.stalledAfterMs !== undefined;
      expect([what, isRetriable({ failureReason: reason, stalled })]).toEqual([what, retried]);
    }
  });
  it('leaves successes, skips and client stops alone', () => {
    for (const status of ['completed', 'skipped', 'stopped'] as const)
      expect(afterAttempt(codon(), failed(api500, { status }))).toEqual({ kind: 'none' });
  });
  it('gives up after maxAttempts with the plan then', () => {
    const c = codon({ onFailure: { retry, then: 'continue' } });
    expect(afterAttempt(c, failed(api500, { attempt: 2 }))).toMatchObject({
      kind: 'retry',
      next: { attempt: 3 },
    });
    expect(afterAttempt(c, failed(api500, { attempt: 3 }))).toEqual({
      kind: 'give-up',
      afterwards: 'continue',
      attempts: 3,
      why: '3 attempts failed (api-error)',
    });
  });
  it('applies then without a retry policy, but never continues or aborts after a budget stop', () => {
    const c = codon({ onFailure: { then: 'abort' } });
    expect(afterAttempt(c, failed(api500))).toMatchObject({ kind: 'give-up', afterwards: 'abort' });
    expect(afterAttempt(c, failed({ type: 'budget', retriable: false }))).toMatchObject({
      kind: 'give-up',
      afterwards: 'idle',
    });
  });
  it('waits the doubled backoff, or the retry-after when longer', () => {
    expect(afterAttempt(codon(), failed(api500, { attempt: 2 }))).toMatchObject({ waitMs: 2000 });
    expect(afterAttempt(codon(), failed(rate, { retryAfterMs: 9000 }))).toMatchObject({ waitMs: 9000 });
  });
});

describe('fallback model', () => {
  it('switches after a rate-limit and keeps the fallback for every remaining attempt', () => {
    const c = codon({ fallbackModel: 'small' });
    const first = afterAttempt(c, failed(rate));
    expect(first).toMatchObject({
      kind: 'retry',
      switchedToFallback: true,
      next: { model: 'small', onFallback: true },
    });
    const second = afterAttempt(c, failed(api500, { attempt: 2, model: 'small', onFallback: true }));
    expect(second).toMatchObject({
      kind: 'retry',
      switchedToFallback: false,
      next: { attempt: 3, model: 'small' },
    });
  });
  it('switches after an overload (529), not after another server error', () => {
    const c = codon({ fallbackModel: 'small' });
    const overloaded: FailureReason = { type: 'api-error', retriable: true, message: '529 overloaded_error' };
    expect(afterAttempt(c, failed(overloaded, { apiErrorStatus: 529 }))).toMatchObject({
      switchedToFallback: true,
      why: 'overload',
    });
    expect(afterAttempt(c, failed(api500, { apiErrorStatus: 500 }))).toMatchObject({
      switchedToFallback: false,
      next: { model: 'm1' },
    });
  });
  it('gives a codon without a retry policy one extra attempt with the fallback', () => {
    const c = codon({ onFailure: { then: 'idle' }, fallbackModel: 'small' });
    const decided = afterAttempt(c, failed(rate, { retryAfterMs: 0 }));
    expect(decided).toMatchObject({
      kind: 'retry',
      next: { attempt: 2, maxAttempts: 2, model: 'small' },
      waitMs: 5000,
    });
    expect(afterAttempt(c, failed(rate, { attempt: 2, model: 'small', onFallback: true }))).toMatchObject({
      kind: 'give-up',
      afterwards: 'idle',
    });
    // Not for a failure that is not for load.
    expect(afterAttempt(c, failed(api500))).toMatchObject({ kind: 'give-up' });
  });
  it('gives the fallback an attempt even when the policy has none left', () => {
    const c = codon({
      onFailure: { retry: { ...retry, maxAttempts: 2 }, then: 'idle' },
      fallbackModel: 'small',
    });
    expect(afterAttempt(c, failed(rate, { attempt: 2 }))).toMatchObject({
      kind: 'retry',
      next: { attempt: 3, maxAttempts: 3, model: 'small' },
    });
  });
});

describe('messages and the first attempt', () => {
  it('says the attempt and the wait, and the switch', () => {
    const decided = afterAttempt(codon({ fallbackModel: 'small' }), failed(rate, { retryAfterMs: 4000 }));
    if (decided.kind !== 'retry') throw new Error('expected a retry');
    expect(retryMessage('c', decided)).toBe('codon c failed (rate-limit); attempt 2 of 3 in 4 s');
    expect(fallbackMessage('c', decided)).toBe('switching codon c to fallback model small after rate-limit');
  });
  it('starts at attempt 1 with the codon model or the default', () => {
    expect(firstAttempt({ ...codon(), model: 'x' }, 'd')).toEqual({
      attempt: 1,
      maxAttempts: 3,
      model: 'x',
      onFallback: false,
    });
    expect(firstAttempt(codon({ onFailure: { then: 'idle' } }), 'd')).toMatchObject({
      maxAttempts: 1,
      model: 'd',
    });
  });
});
