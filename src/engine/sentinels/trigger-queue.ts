/**
 * A sentinel's bounded queue of triggers. The strategy cuts what has accumulated into batches; the
 * worker takes batches oldest first. Beyond `maxQueue` triggers the oldest is dropped (from the
 * oldest batch, or from the uncut tail when no batch is waiting) and counted. Push, drop and take
 * are O(1) amortized: the agent's event path calls `push`.
 */
export class TriggerQueue<T> {
  readonly #max: number;
  #items: T[] = [];
  #head = 0;
  /** Sizes of the batches cut and not yet taken, oldest first; they cover the oldest items. */
  #batches: number[] = [];
  #batchHead = 0;
  #cutTotal = 0;
  #dropped = 0;

  constructor(maxQueue: number) {
    if (!Number.isInteger(maxQueue) || maxQueue < 1) throw new TypeError('maxQueue must be an integer >= 1');
    this.#max = maxQueue;
  }

  /** Triggers waiting, in batches or not yet cut. */
  get size(): number {
    return this.#items.length - this.#head;
  }

  /** Triggers not yet in a batch. */
  get uncut(): number {
    return this.size - this.#cutTotal;
  }

  /** Batches cut and not yet taken. */
  get batches(): number {
    return this.#batches.length - this.#batchHead;
  }

  /** Triggers dropped since the last `takeDropped`. */
  get dropped(): number {
    return this.#dropped;
  }

  /** Adds a trigger; returns true when the oldest one had to be dropped to make room. */
  push(item: T): boolean {
    this.#items.push(item);
    if (this.size <= this.#max) return false;
    this.#dropOldest();
    return true;
  }

  /** Makes every uncut trigger one batch; returns its size (0: nothing to cut, no batch made). */
  cut(): number {
    const n = this.uncut;
    if (n === 0) return 0;
    this.#batches.push(n);
    this.#cutTotal += n;
    return n;
  }

  /** Removes and returns the oldest batch, or undefined when none is cut. */
  take(): T[] | undefined {
    if (this.batches === 0) return undefined;
    const n = this.#batches[this.#batchHead]!;
    this.#batchHead++;
    this.#cutTotal -= n;
    const batch = this.#items.slice(this.#head, this.#head + n);
    this.#head += n;
    this.#compact();
    return batch;
  }

  /** Returns the dropped count and starts counting again. */
  takeDropped(): number {
    const n = this.#dropped;
    this.#dropped = 0;
    return n;
  }

  clear(): void {
    this.#dropped += this.size;
    this.#items = [];
    this.#head = 0;
    this.#batches = [];
    this.#batchHead = 0;
    this.#cutTotal = 0;
  }

  #dropOldest(): void {
    this.#head++;
    this.#dropped++;
    if (this.batches > 0) {
      this.#cutTotal--;
      const first = this.#batches[this.#batchHead]! - 1;
      if (first === 0) this.#batchHead++;
      else this.#batches[this.#batchHead] = first;
    }
    this.#compact();
  }

  // Reclaims the consumed prefix once it is as large as what remains (amortized O(1)).
  #compact(): void {
    if (this.#head > 64 && this.#head * 2 >= this.#items.length) {
      this.#items = this.#items.slice(this.#head);
      this.#head = 0;
    }
    if (this.#batchHead > 64 && this.#batchHead * 2 >= this.#batches.length) {
      this.#batches = this.#batches.slice(this.#batchHead);
      this.#batchHead = 0;
    }
  }
}
