import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createCoalescedTask } from '../../../src/platform/files/coalesced-task.ts';

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

function counting(options: { delayMs?: number; maxWaitMs?: number } = {}) {
  const runs: number[] = [];
  let finishRun: (() => void) | undefined;
  let holdRuns = false;
  const task = createCoalescedTask({
    delayMs: options.delayMs ?? 100,
    maxWaitMs: options.maxWaitMs ?? 400,
    task: async () => {
      runs.push(Date.now());
      if (holdRuns) await new Promise<void>((resolve) => (finishRun = resolve));
    },
    onError: () => {},
  });
  return {
    task,
    runs,
    hold: () => (holdRuns = true),
    release: () => {
      holdRuns = false;
      finishRun?.();
    },
  };
}

describe('createCoalescedTask', () => {
  it('runs once after a burst of asks goes quiet', async () => {
    const { task, runs } = counting();
    for (let i = 0; i < 10; i++) {
      task.schedule();
      await vi.advanceTimersByTimeAsync(10);
    }
    expect(runs).toHaveLength(0);
    await vi.advanceTimersByTimeAsync(100);
    expect(runs).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1000);
    expect(runs).toHaveLength(1);
  });

  it('runs at least every maxWaitMs while asks keep coming', async () => {
    const { task, runs } = counting({ delayMs: 100, maxWaitMs: 300 });
    for (let i = 0; i < 100; i++) {
      task.schedule();
      await vi.advanceTimersByTimeAsync(50);
    }
    // 5 s of asks every 50 ms: a run about every 300 ms, never none.
    expect(runs.length).toBeGreaterThanOrEqual(14);
    expect(runs.length).toBeLessThanOrEqual(17);
  });

  it('never overlaps runs, and an ask during a run gives exactly one more run', async () => {
    const { task, runs, hold, release } = counting();
    hold();
    task.schedule();
    await vi.advanceTimersByTimeAsync(100);
    expect(runs).toHaveLength(1);
    task.schedule();
    task.schedule();
    await vi.advanceTimersByTimeAsync(500);
    expect(runs).toHaveLength(1);
    release();
    await vi.advanceTimersByTimeAsync(100);
    expect(runs).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(1000);
    expect(runs).toHaveLength(2);
  });

  it('reports a failed run and keeps working', async () => {
    let fail = true;
    const errors: unknown[] = [];
    let runs = 0;
    const task = createCoalescedTask({
      delayMs: 10,
      maxWaitMs: 10,
      task: async () => {
        runs++;
        if (fail) throw new Error('boom');
      },
      onError: (e) => errors.push(e),
    });
    task.schedule();
    await vi.advanceTimersByTimeAsync(10);
    fail = false;
    task.schedule();
    await vi.advanceTimersByTimeAsync(10);
    expect(runs).toBe(2);
    expect(errors).toHaveLength(1);
  });

  it('cancels what is pending on close, waits for a run in progress, and ignores later asks', async () => {
    const first = counting();
    first.task.schedule();
    await first.task.close();
    await vi.advanceTimersByTimeAsync(1000);
    expect(first.runs).toHaveLength(0);

    const second = counting();
    second.hold();
    second.task.schedule();
    await vi.advanceTimersByTimeAsync(100);
    let closed = false;
    const closing = second.task.close().then(() => (closed = true));
    second.task.schedule();
    await vi.advanceTimersByTimeAsync(10);
    expect(closed).toBe(false);
    second.release();
    await closing;
    await vi.advanceTimersByTimeAsync(1000);
    expect(second.runs).toHaveLength(1);
  });
});
