import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createStrategy } from '../../../src/engine/sentinels/strategies.ts';
import type { ExecutionStrategy } from '../../../src/plan/index.ts';

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

/** A script of steps: "t" = one trigger, a number = advance fake time by that many ms, "f" = flush. */
function play(config: ExecutionStrategy, script: Array<'t' | 'f' | number>): number[] {
  const fires: number[] = [];
  const start = Date.now();
  const strategy = createStrategy(config, () => fires.push(Date.now() - start));
  for (const step of script) {
    if (step === 't') strategy.trigger();
    else if (step === 'f') strategy.flush();
    else vi.advanceTimersByTime(step);
  }
  strategy.dispose();
  return fires;
}

describe('execution strategies (fire times in ms)', () => {
  const table: Array<[string, ExecutionStrategy, Array<'t' | 'f' | number>, number[]]> = [
    ['immediate fires on every trigger', { type: 'immediate' }, ['t', 10, 't', 't'], [0, 10, 10]],
    ['immediate flush has nothing to fire', { type: 'immediate' }, ['t', 'f'], [0]],
    ['debounce waits for quiet', { type: 'debounce', quietMs: 100 }, ['t', 50, 't', 50, 't', 99], []],
    [
      'debounce fires once after the quiet period',
      { type: 'debounce', quietMs: 100 },
      ['t', 50, 't', 100],
      [150],
    ],
    [
      'debounce fires again after new triggers',
      { type: 'debounce', quietMs: 100 },
      ['t', 100, 't', 100],
      [100, 200],
    ],
    ['debounce without triggers never fires', { type: 'debounce', quietMs: 100 }, [1000], []],
    [
      'debounce flush fires now and cancels the timer',
      { type: 'debounce', quietMs: 100 },
      ['t', 10, 'f', 500],
      [10],
    ],
    ['count fires every N', { type: 'count', every: 3 }, ['t', 't', 't', 't', 't', 't', 't'], [0, 0]],
    ['count flush fires the remainder', { type: 'count', every: 3 }, ['t', 't', 't', 't', 5, 'f'], [0, 5]],
    ['count flush with nothing pending', { type: 'count', every: 3 }, ['t', 't', 't', 'f'], [0]],
    ['count of one is immediate', { type: 'count', every: 1 }, ['t', 't'], [0, 0]],
    [
      'timeWindow batches a window',
      { type: 'timeWindow', intervalMs: 100 },
      ['t', 30, 't', 30, 't', 40],
      [100],
    ],
    [
      'timeWindow opens a new window on the next trigger',
      { type: 'timeWindow', intervalMs: 100 },
      ['t', 100, 50, 't', 100],
      [100, 250],
    ],
    ['timeWindow runs no timer while idle', { type: 'timeWindow', intervalMs: 100 }, [1000], []],
    [
      'timeWindow does not stretch under a steady stream',
      { type: 'timeWindow', intervalMs: 100 },
      ['t', 40, 't', 40, 't', 40, 't', 40, 't', 40],
      [100],
    ],
    ['timeWindow flush', { type: 'timeWindow', intervalMs: 100 }, ['t', 20, 'f', 200], [20]],
    // leading (trial 17b L8): the first look is not an interval late, and the pace stays one per interval.
    [
      'timeWindow leading calls the first trigger at once, later ones at the end of the interval',
      { type: 'timeWindow', intervalMs: 100, leading: true },
      ['t', 30, 't', 30, 't', 100],
      [0, 100],
    ],
    [
      'timeWindow leading keeps one call per interval under a steady stream',
      { type: 'timeWindow', intervalMs: 100, leading: true },
      ['t', 40, 't', 40, 't', 40, 't', 40, 't', 40],
      [0, 100, 200],
    ],
    [
      'timeWindow leading after a quiet interval calls at once again',
      { type: 'timeWindow', intervalMs: 100, leading: true },
      ['t', 150, 't', 't', 100],
      [0, 150, 250],
    ],
  ];
  it.each(table)('%s', (_name, config, script, expected) => {
    expect(play(config, script)).toEqual(expected);
  });

  it('counts pending triggers and resets on fire', () => {
    const strategy = createStrategy({ type: 'count', every: 3 }, () => {});
    strategy.trigger();
    strategy.trigger();
    expect(strategy.pending).toBe(2);
    strategy.trigger();
    expect(strategy.pending).toBe(0);
  });

  it('does nothing once disposed', () => {
    const fire = vi.fn();
    const strategy = createStrategy({ type: 'debounce', quietMs: 100 }, fire);
    strategy.trigger();
    strategy.dispose();
    vi.advanceTimersByTime(1000);
    strategy.trigger();
    strategy.flush();
    expect(fire).not.toHaveBeenCalled();
    expect(vi.getTimerCount()).toBe(0);
  });

  it('uses injected timers and clock, re-arming for the rest of the quiet period', () => {
    const log: string[] = [];
    let clock = 0;
    let callback: (() => void) | undefined;
    const strategy = createStrategy({ type: 'debounce', quietMs: 10 }, () => log.push(`fire@${clock}`), {
      setTimeout: (cb, ms) => {
        log.push(`arm ${ms}@${clock}`);
        callback = cb;
        return 1;
      },
      clearTimeout: () => {},
      now: () => clock,
    });
    strategy.trigger();
    clock = 4;
    strategy.trigger(); // no new timer: only the time is noted
    clock = 10;
    callback?.();
    clock = 14;
    callback?.();
    expect(log).toEqual(['arm 10@0', 'arm 4@10', 'fire@14']);
  });
});
