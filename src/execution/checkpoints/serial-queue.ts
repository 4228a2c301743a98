/**
 * Runs tasks one at a time in the order given. git takes index.lock for writes and fails rather than
 * wait, so a list asked for while a checkpoint is written must queue behind it, not race it.
 */
export class SerialQueue {
  #tail: Promise<unknown> = Promise.resolve();

  run<T>(task: () => Promise<T>): Promise<T> {
    const result = this.#tail.then(task);
    // A failed task must not stop the ones queued after it.
    this.#tail = result.catch(() => {});
    return result;
  }

  /** Resolves once every task queued so far has finished. */
  idle(): Promise<void> {
    return this.#tail.then(() => {});
  }
}
