import type { ExecutionStrategy } from '../../plan/index.ts';

/**
 * Execution strategies: small state machines that decide when the triggers queued so far become one
 * LLM call ("fire"). They only count and keep timers; the queue and the call live elsewhere. Timers
 * are injected so tests drive them with fake time.
 *
 * - immediate: fires on every trigger.
 * - debounce: fires once no trigger has come for `quietMs`. A trigger only notes its time; the one
 *   timer, when it expires early, re-arms for the rest of the quiet period (no timer churn per event).
 * - count: fires on every `every`-th trigger.
 * - timeWindow: the first trigger after a fire opens a window of `intervalMs`; when it closes, one
 *   fire takes everything that came in it. So at most one call per interval, and no timer runs while
 *   nothing is pending. With `leading`, a trigger `intervalMs` or more after the last fire fires at
 *   once, and one that comes sooner waits for the rest of the interval since that fire.
 *
 * `flush()` fires now if anything is pending (the codon is ending); `dispose()` cancels timers.
 */
export type Timers = {
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
  /** Milliseconds, monotonic enough for quiet periods. */
  now(): number;
};

/** Real timers, looked up on each call so test fakes installed later still apply. */
export const realTimers: Timers = {
  setTimeout: (callback, ms) => setTimeout(callback, ms),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
  now: () => Date.now(),
};

export type Strategy = {
  readonly type: ExecutionStrategy['type'];
  /** A trigger was queued; `now` (timers.now()) saves a clock read per sentinel when given. */
  trigger(now?: number): void;
  /** Fire now if triggers are pending (they are not lost when the codon ends). */
  flush(): void;
  /** Triggers counted since the last fire. */
  readonly pending: number;
  dispose(): void;
};

export function createStrategy(
  config: ExecutionStrategy,
  fire: () => void,
  timers: Timers = realTimers,
): Strategy {
  let pending = 0;
  let timer: unknown;
  let disposed = false;
  const cancel = () => {
    if (timer !== undefined) timers.clearTimeout(timer);
    timer = undefined;
  };
  let lastFireAt: number | undefined;
  const fireNow = () => {
    cancel();
    if (disposed || pending === 0) return;
    pending = 0;
    if (config.type === 'timeWindow' && config.leading) lastFireAt = timers.now();
    fire();
  };
  const arm = (ms: number, then: () => void) => {
    timer = timers.setTimeout(() => {
      timer = undefined;
      then();
    }, ms);
  };
  let lastTriggerAt = 0;
  const onTrigger = ((): ((now?: number) => void) => {
    switch (config.type) {
      case 'immediate':
        return fireNow;
      case 'debounce': {
        const quietEnded = () => {
          const quiet = timers.now() - lastTriggerAt;
          if (quiet >= config.quietMs) fireNow();
          else arm(config.quietMs - quiet, quietEnded);
        };
        return (now) => {
          lastTriggerAt = now ?? timers.now();
          if (timer === undefined) arm(config.quietMs, quietEnded);
        };
      }
      case 'count':
        return () => {
          if (pending >= config.every) fireNow();
        };
      case 'timeWindow':
        if (config.leading) {
          return (now) => {
            if (timer !== undefined) return;
            const since = lastFireAt === undefined ? config.intervalMs : (now ?? timers.now()) - lastFireAt;
            if (since >= config.intervalMs) fireNow();
            else arm(config.intervalMs - since, fireNow);
          };
        }
        return () => {
          if (timer === undefined) arm(config.intervalMs, fireNow);
        };
    }
  })();
  return {
    type: config.type,
    trigger(now) {
      if (disposed) return;
      pending++;
      onTrigger(now);
    },
    flush: fireNow,
    get pending() {
      return pending;
    },
    dispose() {
      disposed = true;
      cancel();
    },
  };
}
