import { describe, expect, it } from 'vitest';
import { type BudgetedCodon, BudgetLedger } from '../../../src/engine/budgets/ledger.ts';

const T0 = 1_000_000;
const codons: BudgetedCodon[] = [
  { id: 'plain' },
  { id: 'capped', budget: { maxCostUsd: 0.5 } },
  { id: 'a#0', loop: { id: 'fix', budget: { maxCostUsd: 1, maxDurationMs: 10_000 } } },
  { id: 'a#1', loop: { id: 'fix', budget: { maxCostUsd: 1, maxDurationMs: 10_000 } } },
  { id: 'after' },
];
const ledger = (limits?: ConstructorParameters<typeof BudgetLedger>[0]['limits']) =>
  new BudgetLedger({ planName: 'p', codons, now: T0, ...(limits ? { limits } : {}) });

describe('budget ledger: the plan scope', () => {
  it('warns once at 80 %, then reports the limit passed once, naming the spend', () => {
    const l = ledger({ maxCostUsd: 1 });
    l.begin('plain', T0);
    expect(l.addCost('plain', 0.5, T0)).toEqual([]);
    const [warning] = l.addCost('plain', 0.34, T0);
    expect(warning).toMatchObject({ level: 'warning', scope: 'plan', id: 'p', limit: 'maxCostUsd', max: 1 });
    expect(warning?.spent).toBeCloseTo(0.84);
    expect(l.addCost('plain', 0.1, T0)).toEqual([]);
    const [over] = l.addCost('plain', 0.1, T0);
    expect(over).toMatchObject({ level: 'exceeded', scope: 'plan', limit: 'maxCostUsd', max: 1 });
    expect(over?.spent).toBeCloseTo(1.04);
    expect(l.addCost('plain', 0.5, T0)).toEqual([]);
    expect(l.status(T0)[0]).toMatchObject({ scope: 'plan', state: 'exceeded' });
  });

  it('counts a cost exactly at the limit as within it, and a jump past it as exceeded only', () => {
    const l = ledger({ maxCostUsd: 1 });
    expect(l.addCost('plain', 1, T0).map((a) => a.level)).toEqual(['warning']);
    expect(l.addCost('plain', 0.01, T0).map((a) => a.level)).toEqual(['exceeded']);
    const jump = ledger({ maxCostUsd: 1 });
    expect(jump.addCost('plain', 2, T0).map((a) => a.level)).toEqual(['exceeded']);
  });

  it('counts sentinel costs after a codon ended, and corrections that lower an estimate', () => {
    const l = ledger({ maxCostUsd: 1 });
    l.begin('plain', T0);
    l.addCost('plain', 0.7, T0);
    l.end('plain', T0);
    expect(l.addCost('plain', -0.1, T0)).toEqual([]);
    expect(l.addCost('plain', 0.25, T0).map((a) => a.level)).toEqual(['warning']);
    expect(l.status(T0)[0]?.spent.costUsd).toBe(0.85); // 0.7 - 0.1 + 0.25, shown without float noise
  });

  it("marks a scope's spend estimated once an estimated cost counts in it (trial 18 M1)", () => {
    const l = ledger({ maxCostUsd: 1 });
    l.begin('capped', T0);
    l.addCost('capped', 0.1, T0);
    expect(l.status(T0)[0]?.spent).not.toHaveProperty('costEstimated');
    l.addCost('capped', 0.2, T0, true);
    expect(l.status(T0).map((s) => s.spent.costEstimated)).toEqual([true, true]);
    const [over] = l.addCost('capped', 0.3, T0);
    expect(over).toMatchObject({ level: 'exceeded', scope: 'codon', estimated: true });
  });

  it('counts output tokens from running totals, each attempt from zero', () => {
    const l = ledger({ maxOutputTokens: 1_000 });
    l.begin('plain', T0);
    expect(l.usage('plain', 500, T0)).toEqual([]);
    expect(l.usage('plain', 800, T0).map((a) => a.level)).toEqual(['warning']);
    l.end('plain', T0);
    l.begin('plain', T0);
    // A new attempt reports 0, 150: 950 in all, still within.
    expect(l.usage('plain', 150, T0)).toEqual([]);
    expect(l.usage('plain', 250, T0)).toMatchObject([
      { level: 'exceeded', limit: 'maxOutputTokens', spent: 1_050 },
    ]);
  });

  it("runs the plan's clock from the ledger's creation (the server's start), idle or not", () => {
    const l = ledger({ maxDurationMs: 60_000 });
    expect(l.nextCheckAt()).toBe(T0 + 48_000);
    expect(l.tick(T0 + 47_999)).toEqual([]);
    expect(l.tick(T0 + 48_000)).toMatchObject([{ level: 'warning', limit: 'maxDurationMs', spent: 48_000 }]);
    expect(l.nextCheckAt()).toBe(T0 + 60_000);
    expect(l.tick(T0 + 60_000)).toMatchObject([{ level: 'exceeded', spent: 60_000 }]);
    expect(l.nextCheckAt()).toBeUndefined();
    expect(l.refusal('plain', T0 + 61_000)).toMatchObject({ scope: 'plan', limit: 'maxDurationMs' });
  });

  it("stops the plan's clock once every codon is done: no alert for a finished run, until a codon starts again", () => {
    const l = ledger({ maxDurationMs: 60_000 });
    l.begin('plain', T0);
    l.end('plain', T0 + 10_000);
    l.settle(T0 + 10_000);
    expect(l.nextCheckAt()).toBeUndefined();
    expect(l.tick(T0 + 120_000)).toEqual([]);
    expect(l.status(T0 + 120_000)[0]).toMatchObject({
      state: 'ok',
      ticking: false,
      spent: { durationMs: 10_000 },
    });
    // A start (a redo) counts from the server's start again: the run's time is spent.
    expect(l.refusal('plain', T0 + 120_000)).toMatchObject({ scope: 'plan', limit: 'maxDurationMs' });
    l.begin('plain', T0 + 120_000);
    expect(l.status(T0 + 120_000)[0]).toMatchObject({ ticking: true, spent: { durationMs: 120_000 } });
  });

  it('refuses no start while within every limit, and knows nothing to do without limits', () => {
    const l = ledger({ maxCostUsd: 1 });
    expect(l.refusal('plain', T0)).toBeUndefined();
    expect(ledger().limited).toBe(true); // codon and loop budgets
    expect(new BudgetLedger({ planName: 'p', codons: [{ id: 'x' }], now: T0 }).limited).toBe(false);
  });
});

describe('budget ledger: loop and codon scopes', () => {
  it("counts every iteration of a loop together, and refuses the loop's codons once it is spent", () => {
    const l = ledger();
    l.begin('a#0', T0);
    expect(l.addCost('a#0', 0.6, T0)).toEqual([]);
    l.end('a#0', T0 + 1_000);
    l.begin('a#1', T0 + 2_000);
    const [over] = l.addCost('a#1', 0.5, T0 + 2_000);
    expect(over).toMatchObject({ level: 'exceeded', scope: 'loop', id: 'fix', limit: 'maxCostUsd' });
    expect(l.covers(over!, 'a#1')).toBe(true);
    expect(l.covers(over!, 'after')).toBe(false);
    expect(l.refusal('a#0', T0 + 3_000)).toMatchObject({ scope: 'loop', id: 'fix' });
    expect(l.refusal('after', T0 + 3_000)).toBeUndefined();
  });

  it("runs a loop's clock from its first codon's start, checked while its codons run and at their start", () => {
    const l = ledger();
    expect(l.nextCheckAt()).toBeUndefined();
    l.begin('a#0', T0 + 5_000);
    expect(l.nextCheckAt()).toBe(T0 + 5_000 + 8_000);
    l.end('a#0', T0 + 6_000);
    expect(l.nextCheckAt()).toBeUndefined();
    expect(l.status(T0 + 9_000).find((s) => s.scope === 'loop')).toBeUndefined();
    // Between iterations the wall clock goes on: the next iteration is refused once it has run out.
    expect(l.refusal('a#1', T0 + 14_000)).toBeUndefined();
    expect(l.refusal('a#1', T0 + 15_000)).toMatchObject({ scope: 'loop', limit: 'maxDurationMs' });
  });

  it("keeps a codon's budget over its automatic attempts, and starts it afresh when started again", () => {
    const l = ledger();
    l.begin('capped', T0);
    l.addCost('capped', 0.3, T0);
    l.end('capped', T0);
    l.begin('capped', T0, false);
    expect(l.addCost('capped', 0.25, T0).map((a) => `${a.level} ${a.scope}`)).toEqual(['exceeded codon']);
    expect(l.status(T0).map((s) => `${s.scope} ${s.state}`)).toEqual(['codon exceeded']);
    l.end('capped', T0);
    // Its own budget never refuses a start: a person starting it again gives it a fresh allowance.
    expect(l.refusal('capped', T0)).toBeUndefined();
    l.begin('capped', T0);
    expect(l.addCost('capped', 0.3, T0)).toEqual([]);
    expect(l.status(T0)).toMatchObject([{ scope: 'codon', state: 'ok', spent: { costUsd: 0.3 } }]);
  });

  it('shows the plan, then the active codon scopes, with their clocks standing still once it ended', () => {
    const l = ledger({ maxCostUsd: 5 });
    l.begin('a#0', T0 + 1_000);
    l.addCost('a#0', 0.2, T0 + 1_000);
    expect(l.status(T0 + 4_000)).toMatchObject([
      { scope: 'plan', id: 'p', ticking: true, spent: { costUsd: 0.2, durationMs: 4_000 } },
      { scope: 'loop', id: 'fix', ticking: true, spent: { costUsd: 0.2, durationMs: 3_000 } },
    ]);
    l.end('a#0', T0 + 4_000);
    expect(l.status(T0 + 9_000)).toMatchObject([
      { scope: 'plan', ticking: true, spent: { durationMs: 9_000 } },
    ]);
  });
});

describe('budget ledger: a usage-limit wait', () => {
  it("stops the plan's and the loop's clocks and leaves the wait out of their durations", () => {
    const l = ledger({ maxDurationMs: 60_000 });
    l.begin('a#0', T0);
    l.end('a#0', T0 + 10_000);
    l.pause('a#0', T0 + 10_000);
    // Two hours waited: nothing ticks, nothing is exceeded.
    expect(l.tick(T0 + 7_200_000)).toEqual([]);
    expect(l.nextCheckAt()).toBeUndefined();
    l.resume(T0 + 7_210_000);
    l.begin('a#0', T0 + 7_210_000, false);
    const [plan, loop] = l.status(T0 + 7_220_000);
    expect(plan).toMatchObject({ scope: 'plan', state: 'ok', spent: { durationMs: 20_000 } });
    expect(loop).toMatchObject({ scope: 'loop', id: 'fix', spent: { durationMs: 20_000 } });
    expect(l.refusal('after', T0 + 7_220_000)).toBeUndefined();
  });

  it('without a pause (countWait), the wait counts and the clock runs out', () => {
    const l = ledger({ maxDurationMs: 60_000 });
    l.begin('plain', T0);
    l.end('plain', T0 + 10_000);
    expect(l.refusal('after', T0 + 7_200_000)).toMatchObject({ scope: 'plan', limit: 'maxDurationMs' });
  });
});
