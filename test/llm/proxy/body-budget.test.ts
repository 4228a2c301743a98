import { describe, expect, it } from 'vitest';
import { createBodyBudget } from '../../../src/llm/proxy/body-budget.ts';

describe('createBodyBudget', () => {
  it('grants holds up to the limit, refuses past it, and takes back a hold whole on release', () => {
    const budget = createBodyBudget(100);
    const a = budget.open();
    const b = budget.open();
    expect(a.grow(60)).toBe(true);
    expect(b.grow(30)).toBe(true);
    expect(b.grow(20)).toBe(false);
    expect(b.bytes).toBe(30);
    expect(budget.inFlight).toBe(90);
    expect(b.grow(10)).toBe(true);
    a.release();
    expect(budget.inFlight).toBe(40);
    expect(b.grow(60)).toBe(true);
    b.release();
    expect(budget.inFlight).toBe(0);
  });

  it('releases once, and a released hold takes nothing more', () => {
    const budget = createBodyBudget(10);
    const hold = budget.open();
    hold.grow(5);
    hold.release();
    hold.release();
    expect(budget.inFlight).toBe(0);
    expect(hold.grow(1)).toBe(false);
    expect(budget.inFlight).toBe(0);
  });
});
