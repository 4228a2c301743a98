import { EventEmitter } from 'node:events';
import type { BatchSummary } from '../../../../../src/clients/batch/summary-schema.ts';

/** A terminal for `runBatchView` without one: what is written, and keys to type (as ink-testing-library's). */
export class FakeStdout extends EventEmitter {
  readonly isTTY = true;
  columns = 100;
  rows = 20;
  readonly chunks: string[] = [];
  write = (chunk: string) => {
    this.chunks.push(chunk);
    return true;
  };
  /** Everything written, colour and cursor sequences taken out. */
  text(): string {
    // biome-ignore lint/suspicious/noControlCharactersInRegex: stripping the terminal's sequences
    return this.chunks.join('').replace(/\u001b\[[0-9;?]*[A-Za-z]/g, '');
  }
}

export class FakeStdin extends EventEmitter {
  readonly isTTY = true;
  #data: string | null = null;
  /** Types a key; false when nothing listens (no table is mounted to read it). */
  type(key: string): boolean {
    if (this.listenerCount('readable') === 0) return false;
    this.#data = key;
    this.emit('readable');
    return true;
  }
  read = () => {
    const data = this.#data;
    this.#data = null;
    return data;
  };
  setEncoding() {}
  setRawMode() {}
  resume() {}
  pause() {}
  ref() {}
  unref() {}
}

/**
 * Summaries pushed by the test, ended when it says: the runner's side of `runBatchView`. `push`
 * resolves once the view took the summary (it asked for the next one): the table has drawn it.
 */
export function summaryChannel() {
  const queue: { summary: BatchSummary; taken: () => void }[] = [];
  let ended = false;
  let wake: (() => void) | undefined;
  const iterable: AsyncIterable<BatchSummary> = {
    async *[Symbol.asyncIterator]() {
      for (;;) {
        const next = queue.shift();
        if (next) {
          yield next.summary;
          // Asked for the next: the view is done with this one (the store told React, which drew it).
          next.taken();
        } else if (ended) return;
        else await new Promise<void>((r) => (wake = r));
      }
    },
  };
  return {
    iterable,
    push(summary: BatchSummary): Promise<void> {
      return new Promise((taken) => {
        queue.push({ summary, taken });
        wake?.();
      });
    },
    end() {
      ended = true;
      wake?.();
    },
  };
}

/** Polls `check` until it holds, failing after `timeoutMs`. */
export async function until(what: string, check: () => boolean, timeoutMs = 3_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}
