import { describe, expect, it } from 'vitest';
import { decideUsageLimit, waitingMessage } from '../../../src/engine/usage-limits/decide.ts';
import { usageLimitPolicy } from '../../../src/plan/usage-limit-schema.ts';

const NOW = new Date(2026, 10, 30, 12, 47, 0).getTime();
const H = 3_600_000;
const met = (overrides: Partial<Parameters<typeof decideUsageLimit>[0]> = {}) => ({
  policy: usageLimitPolicy(undefined, undefined),
  agent: 'claude-code',
  onFallback: false,
  now: NOW,
  since: NOW,
  ...overrides,
});

describe('what follows a usage limit', () => {
  it('waits (the default) until the reset plus the margin', () => {
    const d = decideUsageLimit(met({ resetsAt: NOW + 2 * H + 13 * 60_000 }));
    expect(d).toMatchObject({ kind: 'wait', until: NOW + 2 * H + 14 * 60_000, waitMs: 2 * H + 14 * 60_000 });
    expect(d.why).toBe('claude-code reached its usage limit (it resets at 15:00)');
  });

  it('fails a reset past maxWaitMs, saying when it resets and the bound', () => {
    const d = decideUsageLimit(
      met({ resetsAt: NOW + 7 * H, policy: usageLimitPolicy({ maxWaitMs: 3 * H }, undefined) }),
    );
    expect(d.kind).toBe('fail');
    expect(d.why).toBe(
      "claude-code's usage limit resets at 19:47 (in 7 h), past onUsageLimit.maxWaitMs (3 h): not waiting",
    );
  });

  it('waits exactly maxWaitMs, and a reset already past only the margin', () => {
    const policy = usageLimitPolicy({ maxWaitMs: H, marginMs: 0 }, undefined);
    expect(decideUsageLimit(met({ resetsAt: NOW + H, policy })).kind).toBe('wait');
    expect(decideUsageLimit(met({ resetsAt: NOW - 5_000 }))).toMatchObject({ kind: 'wait', waitMs: 60_000 });
  });

  it('without a reset time, tries again every unknownResetWaitMs until maxWaitMs since the first limit', () => {
    const policy = usageLimitPolicy({ maxWaitMs: H, unknownResetWaitMs: 20 * 60_000 }, undefined);
    expect(decideUsageLimit(met({ policy }))).toMatchObject({ kind: 'wait', waitMs: 20 * 60_000 });
    expect(decideUsageLimit(met({ policy, since: NOW - 40 * 60_000 })).kind).toBe('wait');
    const late = decideUsageLimit(met({ policy, since: NOW - 41 * 60_000 }));
    expect(late.kind).toBe('fail');
    expect(late.why).toContain('said no reset time');
  });

  it('hands the codon to its fallbackAgent at once, but waits when the fallback met a limit too', () => {
    const policy = usageLimitPolicy(undefined, { fallbackAgent: { agent: 'codex', model: 'gpt-5' } });
    const d = decideUsageLimit(met({ policy, resetsAt: NOW + H }));
    expect(d).toMatchObject({ kind: 'fallback', fallback: { agent: 'codex', model: 'gpt-5' } });
    expect(d.why).toContain('goes to its fallbackAgent codex (gpt-5)');
    expect(decideUsageLimit(met({ policy, agent: 'codex', onFallback: true, resetsAt: NOW + H })).kind).toBe(
      'wait',
    );
  });

  it("fails at once with then: fail (the codon's own policy over the plan's)", () => {
    const policy = usageLimitPolicy('fail', { fallbackAgent: { agent: 'codex' } });
    expect(policy).toMatchObject({ then: 'fail' });
    expect(policy.fallbackAgent).toBeUndefined();
    const d = decideUsageLimit(met({ policy, resetsAt: NOW + H }));
    expect(d).toMatchObject({ kind: 'fail' });
    expect(d.why).toContain('onUsageLimit is fail');
  });

  it('says what the wait is for and until when', () => {
    expect(
      waitingMessage('claude-code', 'two', NOW + 2 * H + 13 * 60_000, NOW + 2 * H + 14 * 60_000, NOW),
    ).toBe('waiting for the usage limit of claude-code to reset at 15:00; codon two starts again at 15:01');
    expect(waitingMessage('gemini', 'one', undefined, NOW + 15 * 60_000, NOW)).toBe(
      'waiting for the usage limit of gemini (it said no reset time): codon one starts again at 13:02',
    );
  });
});
