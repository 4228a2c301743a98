import { describe, expect, it } from 'vitest';
import { type BudgetedCodon, BudgetLedger } from '../../../src/engine/budgets/ledger.ts';
import { exceededMessage, refusalMessage } from '../../../src/engine/budgets/limits.ts';

const T0 = 1_000_000;
const codons: BudgetedCodon[] = [
  { id: 'plain' },
  { id: 'capped', budget: { maxCostUsd: 0.5 } },
  { id: 'a#0', loop: { id: 'fix', budget: { maxCostUsd: 0.8 } } },
];
const ledger = (maxCostUsd?: number) =>
  new BudgetLedger({ planName: 'p', codons, now: T0, ...(maxCostUsd ? { limits: { maxCostUsd } } : {}) });

describe('budget ledger: money held for requests before their cost is reported', () => {
  it('the room is the tightest cost limit left, with requests in flight held against every scope', () => {
    const l = ledger(1);
    l.begin('capped', T0);
    l.addCost('capped', 0.1, T0);
    expect(l.room('capped')).toBeCloseTo(0.4);
    l.hold('capped', 0.3);
    expect(l.room('capped')).toBeCloseTo(0.1);
    // The run's budget sees it too.
    expect(l.room(undefined)).toBeCloseTo(0.6);
    l.begin('a#0', T0);
    expect(l.room('a#0')).toBeCloseTo(0.6);
  });

  it('an answered request holds what it cost until the agent reports it, then nothing', () => {
    const l = ledger(1);
    l.begin('plain', T0);
    const hold = l.hold('plain', 0.5);
    l.answer(hold, 0.2, T0);
    expect(l.room('plain')).toBeCloseTo(0.8);
    l.addCost('plain', 0.2, T0);
    expect(l.room('plain')).toBeCloseTo(0.8);
    // An answer of unknown cost (a cut stream) keeps its worst case held.
    l.answer(l.hold('plain', 0.3), undefined, T0);
    expect(l.room('plain')).toBeCloseTo(0.5);
    // A codon's start lets answers go whose cost was never reported; requests in flight stay held.
    l.hold('plain', 0.1);
    l.begin('capped', T0);
    expect(l.room(undefined)).toBeCloseTo(0.7);
  });

  it("what the codon's answered requests cost and its agent never reported: counted at its end when it was cut short (trial 30)", () => {
    const l = ledger(1);
    l.begin('plain', T0);
    l.answer(l.hold('plain', 0.5), 0.2, T0);
    l.answer(l.hold('plain', 0.4), 0.1, T0);
    l.hold('plain', 0.3); // still in flight: not an answer anyone was billed for yet
    expect(l.unreported('plain')).toBeCloseTo(0.3);
    // The agent reported the first answer: only the second is left unreported.
    l.addCost('plain', 0.2, T0);
    expect(l.unreported('plain')).toBeCloseTo(0.1);
    expect(l.unreported('capped')).toBe(0);
  });

  it('an answer the proxy metered shows as spent (marked estimated) and warns before its agent reports it (trial 30b)', () => {
    const l = ledger(1);
    l.begin('plain', T0);
    // In flight: held, not spent.
    const hold = l.hold('plain', 0.9);
    expect(l.status(T0)[0]?.spent).toMatchObject({ costUsd: 0 });
    // Answered at $0.85: spent, past 80 % of the limit, though Codex reports nothing until its turn ends.
    expect(l.answer(hold, 0.85, T0)).toMatchObject([{ level: 'warning', spent: 0.85 }]);
    expect(l.status(T0)[0]).toMatchObject({
      state: 'warning',
      spent: { costUsd: 0.85, costEstimated: true },
    });
    // The agent's report replaces it: the same spend, counted once, no longer Ribosome's estimate.
    expect(l.addCost('plain', 0.85, T0)).toEqual([]);
    expect(l.status(T0)[0]?.spent).toMatchObject({ costUsd: 0.85 });
    expect(l.status(T0)[0]?.spent).not.toHaveProperty('costEstimated');
  });

  it('without a cost limit there is no room to check', () => {
    expect(ledger().room('plain')).toBeUndefined();
  });

  it('a request the room cannot pay for exhausts the tightest scope once, and later ones find no room', () => {
    const l = ledger(1);
    l.begin('capped', T0);
    l.addCost('capped', 0.45, T0);
    const [alert] = l.exhaust('capped', 0.08);
    expect(alert).toMatchObject({
      level: 'exceeded',
      scope: 'codon',
      id: 'capped',
      limit: 'maxCostUsd',
      next: 0.08,
    });
    expect(alert && exceededMessage(alert)).toBe(
      'codon capped budget exhausted: maxCostUsd 0.50, spent 0.4500, the next request could cost 0.0800',
    );
    expect(l.exhaust('capped', 0.08)).toEqual([]);
    expect(l.room('capped')).toBe(0);
    // The run's own budget still has room for other codons.
    expect(l.room('plain')).toBeCloseTo(0.55);
  });

  it("an exhausted run refuses the next codon's start, saying why", () => {
    const l = ledger(0.1);
    l.begin('plain', T0);
    l.addCost('plain', 0.06, T0);
    l.exhaust('plain', 0.05);
    const breach = l.refusal('capped', T0);
    expect(breach && refusalMessage(breach, 'capped')).toMatch(
      /^not starting capped: the plan budget exhausted: maxCostUsd 0\.10, spent 0\.0600, the next request could cost 0\.0500; restart the server with a higher --max-cost/,
    );
  });
});
