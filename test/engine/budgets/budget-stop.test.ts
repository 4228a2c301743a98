import { describe, expect, it } from 'vitest';
import { classifyOutcome, errorCodeOf } from '../../../src/engine/outcome/failure.ts';
import { resolveServerSettings } from '../../../src/plan/config/server-config.ts';

describe('a budget stop', () => {
  it('is a budget failure, never retried, whatever the agent printed last', () => {
    const message = 'plan budget exceeded: maxCostUsd 1.00, spent 1.04';
    for (const exit of [{ type: 'killed' as const, signal: 'SIGTERM' }, { type: 'success' as const }]) {
      expect(
        classifyOutcome({
          exit,
          timedOut: false,
          stoppedBy: 'budget',
          stopReason: message,
          result: { isError: true, apiErrorStatus: null, message: 'interrupted' },
        }),
      ).toEqual({ success: false, failureReason: { type: 'budget', retriable: false, message } });
    }
  });

  it("is still a client's stop when a client stopped it first", () => {
    const outcome = classifyOutcome({ exit: { type: 'success' }, timedOut: false, stoppedBy: 'forceStop' });
    expect(outcome.failureReason).toMatchObject({ type: 'unknown', message: 'stopped by a client' });
  });
});

describe('the config file budget', () => {
  it('is merged limit by limit under the command line, and validated', () => {
    const merged = resolveServerSettings(
      { budget: { maxCostUsd: 5, maxOutputTokens: 100_000 } },
      { budget: { maxCostUsd: 2 } },
    );
    expect(merged.ok && merged.value.budget).toEqual({ maxCostUsd: 2, maxOutputTokens: 100_000 });
    const bad = resolveServerSettings({ budget: { maxCostUsd: -1 } });
    expect(bad.ok).toBe(false);
    expect(!bad.ok && bad.message).toContain('budget.maxCostUsd');
    const none = resolveServerSettings({});
    expect(none.ok && none.value.budget).toBeUndefined();
  });
});

describe("the code of a codon's error event", () => {
  it('says how the codon ended: stalled, timed out, over budget, a gate, or failed', () => {
    const reason = (type: 'timeout' | 'budget' | 'verify' | 'api-error') => ({ type, retriable: false });
    expect(errorCodeOf(reason('timeout'), true)).toBe('CODON_STALLED');
    expect(errorCodeOf(reason('timeout'), false)).toBe('CODON_TIMEOUT');
    expect(errorCodeOf(reason('budget'), false)).toBe('BUDGET_EXCEEDED');
    expect(errorCodeOf(reason('verify'), false)).toBe('VERIFY_FAILED');
    expect(errorCodeOf(reason('api-error'), false)).toBe('CODON_FAILED');
    expect(errorCodeOf(undefined, false)).toBe('CODON_FAILED');
  });
});
