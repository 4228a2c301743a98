import type { Readable } from 'node:stream';

/** Accumulates a response body as text and lets a test wait for what it expects next. */
export type TextReader = {
  readonly text: string;
  /** Resolves once the text so far satisfies `check`; rejects if the stream ends or fails first. */
  until(check: (text: string) => boolean): Promise<string>;
  /** Resolves with 'end' or 'error' (the error itself) when the stream finishes. */
  finished: Promise<{ kind: 'end' } | { kind: 'error'; error: Error }>;
};

export function readText(stream: Readable): TextReader {
  let text = '';
  let waiter: { check: (text: string) => boolean; resolve: (text: string) => void } | undefined;
  let done: Error | undefined;
  const rejectors = new Set<(error: Error) => void>();
  const finished = new Promise<{ kind: 'end' } | { kind: 'error'; error: Error }>((resolve) => {
    stream.on('data', (chunk: Buffer) => {
      text += chunk.toString('utf8');
      if (waiter?.check(text)) {
        waiter.resolve(text);
        waiter = undefined;
      }
    });
    const finish = (error: Error) => {
      done = error;
      for (const reject of rejectors) reject(error);
    };
    stream.once('end', () => {
      finish(new Error(`stream ended; text so far: ${JSON.stringify(text)}`));
      resolve({ kind: 'end' });
    });
    stream.once('error', (error) => {
      finish(error);
      resolve({ kind: 'error', error });
    });
  });
  return {
    get text() {
      return text;
    },
    until(check) {
      if (check(text)) return Promise.resolve(text);
      if (done) return Promise.reject(done);
      return new Promise((resolve, reject) => {
        rejectors.add(reject);
        waiter = {
          check,
          resolve: (value) => {
            rejectors.delete(reject);
            resolve(value);
          },
        };
      });
    },
    finished,
  };
}

/** A promise with its resolve function outside, for signals between a test and its upstream. */
export function signal(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}
