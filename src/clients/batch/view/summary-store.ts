import type { BatchSummary } from '../summary-schema.ts';

/**
 * Where the table's summaries come from: an async iterable (each value the batch's summary as it is
 * now; its end is the batch's end), or a subscribe function in the same terms.
 */
export type SummarySource = AsyncIterable<BatchSummary> | SubscribeSummaries;
/** Calls `next` with every new summary and `end` once, when the batch is over; returns an unsubscribe. */
export type SubscribeSummaries = (listener: { next(summary: BatchSummary): void; end(): void }) => () => void;

/**
 * The newest summary, for `React.useSyncExternalStore`: read by the table while it is mounted and
 * kept while it is not (a job's TUI open), so the table comes back up to date. `ended` resolves
 * once the source ends, with the last summary (rejects when an iterable throws); `close` stops
 * listening.
 */
export type SummaryStore = {
  get(): BatchSummary | undefined;
  subscribe(onChange: () => void): () => void;
  ended: Promise<BatchSummary | undefined>;
  close(): void;
};

export function summaryStore(source: SummarySource): SummaryStore {
  let latest: BatchSummary | undefined;
  let closed = false;
  const listeners = new Set<() => void>();
  let endWith: (last: BatchSummary | undefined) => void = () => {};
  let failWith: (error: unknown) => void = () => {};
  const ended = new Promise<BatchSummary | undefined>((resolve, reject) => {
    endWith = resolve;
    failWith = reject;
  });
  const next = (summary: BatchSummary) => {
    if (closed) return;
    latest = summary;
    for (const listener of listeners) listener();
  };
  const end = () => endWith(latest);

  let stop: () => void;
  if (typeof source === 'function') {
    stop = source({ next, end });
  } else {
    const iterator = source[Symbol.asyncIterator]();
    // The source's own clean-up failing is not the view's to report.
    stop = () => void Promise.resolve(iterator.return?.()).catch(() => {});
    void (async () => {
      try {
        for (;;) {
          const step = await iterator.next();
          if (step.done || closed) break;
          next(step.value);
        }
        end();
      } catch (error) {
        failWith(error);
      }
    })();
  }
  return {
    get: () => latest,
    subscribe(onChange) {
      listeners.add(onChange);
      return () => listeners.delete(onChange);
    },
    ended,
    close() {
      if (closed) return;
      closed = true;
      stop();
      end();
    },
  };
}
