export type CoalescedTaskOptions = {
  /** Quiet time after the last `schedule()` before the task runs. */
  delayMs: number;
  /** The longest a `schedule()` waits while calls keep coming, so a steady stream still gets runs. */
  maxWaitMs: number;
  task: () => Promise<void>;
  /** Where a failed run goes; the runner itself never rejects. */
  onError: (error: unknown) => void;
};

export type CoalescedTask = {
  /** Ask for a run: many asks within the delay give one run. */
  schedule(): void;
  /** Cancel what is pending and wait for a run in progress; later asks are ignored. */
  close(): Promise<void>;
};

/**
 * A trailing debounce with a maximum wait, for work that reflects "the latest state" (a tree
 * rebuild): runs never overlap, and an ask during a run gives exactly one more run after it, so the
 * last run always starts after the last ask.
 */
export function createCoalescedTask(options: CoalescedTaskOptions): CoalescedTask {
  const { delayMs, maxWaitMs, task, onError } = options;
  let timer: NodeJS.Timeout | undefined;
  let firstAskAt = 0;
  let running: Promise<void> | undefined;
  let askedDuringRun = false;
  let closed = false;

  function fire(): void {
    timer = undefined;
    running = task()
      .catch(onError)
      .finally(() => {
        running = undefined;
        if (askedDuringRun && !closed) {
          askedDuringRun = false;
          schedule();
        }
      });
  }

  function schedule(): void {
    if (closed) return;
    if (running) {
      askedDuringRun = true;
      return;
    }
    const now = performance.now();
    if (timer === undefined) firstAskAt = now;
    else clearTimeout(timer);
    const wait = Math.max(0, Math.min(delayMs, firstAskAt + maxWaitMs - now));
    timer = setTimeout(fire, wait);
  }

  return {
    schedule,
    async close() {
      closed = true;
      if (timer !== undefined) clearTimeout(timer);
      timer = undefined;
      await running;
    },
  };
}
