import { describe, expect, it } from 'vitest';
import {
  exceededMessage,
  parseCost,
  parseDuration,
  refusalMessage,
  runBudget,
  warningMessage,
} from '../../../src/engine/budgets/limits.ts';

describe('budget limits', () => {
  it.each([
    ['90s', 90_000],
    ['30m', 1_800_000],
    ['2h', 7_200_000],
    ['1.5h', 5_400_000],
    ['1500', 1_500],
    ['250ms', 250],
  ])('reads the duration %s as %i ms', (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
  });

  it.each(['', '0', '0s', '-5m', '5 minutes', '1d', 'abc', '999999999h'])(
    'refuses the duration "%s"',
    (text) => {
      expect(parseDuration(text)).toBeUndefined();
    },
  );

  it('reads dollar amounts and refuses what is not a positive one', () => {
    expect(parseCost('1')).toBe(1);
    expect(parseCost('$2.50')).toBe(2.5);
    expect(parseCost('.5')).toBe(0.5);
    for (const bad of ['0', '-1', 'ten', '1e3', '', '$']) expect(parseCost(bad)).toBeUndefined();
  });

  it('puts the run budget together limit by limit, later layers winning', () => {
    expect(
      runBudget({ maxCostUsd: 5, maxOutputTokens: 100 }, { maxCostUsd: 2 }, { maxDurationMs: 60_000 }),
    ).toEqual({
      maxCostUsd: 2,
      maxOutputTokens: 100,
      maxDurationMs: 60_000,
    });
    expect(runBudget(undefined, {}, { maxCostUsd: undefined })).toBeUndefined();
  });

  it('names the scope, the limit and the spend in its messages', () => {
    const plan = { scope: 'plan' as const, id: 'p', limit: 'maxCostUsd' as const, max: 1, spent: 1.0412 };
    expect(exceededMessage(plan)).toBe('plan budget exceeded: maxCostUsd 1.00, spent 1.0412');
    expect(warningMessage({ ...plan, spent: 0.84 })).toBe(
      'plan budget at 84 %: maxCostUsd 1.00, spent 0.8400',
    );
    expect(refusalMessage(plan, 'two')).toBe(
      "not starting two: the plan budget exceeded: maxCostUsd 1.00, spent 1.0412; restart the server with a higher --max-cost (budgets count from the server's start)",
    );
    const loop = {
      scope: 'loop' as const,
      id: 'fix',
      limit: 'maxDurationMs' as const,
      max: 60_000,
      spent: 60_003,
    };
    expect(exceededMessage(loop)).toBe('loop fix budget exceeded: maxDurationMs 60000, spent 60003');
    // A request refused before it went out; one whose worst case is more than the whole limit says so
    // (trial 30b: --max-cost 0.10 refused a Codex codon's first request, and nothing said why).
    expect(exceededMessage({ ...plan, max: 0.5, spent: 0.4, next: 0.15 })).toBe(
      'plan budget exhausted: maxCostUsd 0.50, spent 0.4000, the next request could cost 0.1500',
    );
    expect(exceededMessage({ ...plan, max: 0.1, spent: 0, next: 0.1742 })).toMatch(
      /^plan budget exhausted: maxCostUsd 0\.10, spent 0\.0000, the next request could cost 0\.1742, more than the whole limit .*raise the limit, or --no-proxy/,
    );
    expect(refusalMessage(loop, 'a#2')).toContain("raise the loop's budget.maxDurationMs in the plan");
    expect(exceededMessage({ ...plan, max: 0.05, spent: 0.0512 })).toBe(
      'plan budget exceeded: maxCostUsd 0.05, spent 0.0512',
    );
    // Part of it Ribosome's estimate (an agent that reports no cost, trial 18 M1).
    expect(exceededMessage({ ...plan, max: 0.1, spent: 0.12, estimated: true })).toBe(
      'plan budget exceeded: maxCostUsd 0.10, spent ~0.1200 (estimated)',
    );
  });

  it('shows a spend over its limit as over it (retrial 18 L5: $0.2048 read "spent ~0.20")', () => {
    const plan = { scope: 'plan' as const, id: 'p', limit: 'maxCostUsd' as const, max: 0.2, spent: 0.2048 };
    expect(exceededMessage({ ...plan, estimated: true })).toBe(
      'plan budget exceeded: maxCostUsd 0.20, spent ~0.2048 (estimated)',
    );
    // Four decimals would read as the limit: more are shown.
    expect(exceededMessage({ ...plan, spent: 0.200001 })).toBe(
      'plan budget exceeded: maxCostUsd 0.20, spent 0.200001',
    );
    expect(exceededMessage({ ...plan, max: 0.125, spent: 0.13 })).toBe(
      'plan budget exceeded: maxCostUsd 0.1250, spent 0.1300',
    );
  });
});
