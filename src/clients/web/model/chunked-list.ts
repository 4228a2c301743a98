/**
 * An immutable list of rows kept in chunks, for a list that grows by batches and forgets its
 * oldest: appending a batch copies the last chunk and the list of chunks, not the rows (a page
 * keeping 200 000 activity rows copied all of them on every live batch, 30 times a second), and
 * letting the oldest go drops whole chunks. Reads are by index (`at`), as a windowed list reads.
 */

const SHIFT = 10;
/** Rows per chunk. */
export const CHUNK = 1 << SHIFT;
const MASK = CHUNK - 1;

export class ChunkedList<T> implements Iterable<T> {
  static empty<T>(): ChunkedList<T> {
    return new ChunkedList<T>([], 0, 0);
  }

  /** Every chunk full but the last; the first `head` rows of the first chunk are let go. */
  readonly #chunks: readonly (readonly T[])[];
  readonly #head: number;
  readonly length: number;

  private constructor(chunks: readonly (readonly T[])[], head: number, length: number) {
    this.#chunks = chunks;
    this.#head = head;
    this.length = length;
  }

  /** The row at `index` (negative counts from the end, as Array.prototype.at). */
  at(index: number): T | undefined {
    const i = index < 0 ? this.length + index : index;
    if (i < 0 || i >= this.length) return undefined;
    const at = this.#head + i;
    return this.#chunks[at >> SHIFT]?.[at & MASK];
  }

  *[Symbol.iterator](): Iterator<T> {
    for (let i = 0; i < this.length; i++) yield this.at(i) as T;
  }

  toArray(): T[] {
    return Array.from(this);
  }

  map<U>(fn: (row: T, index: number) => U): U[] {
    const out = new Array<U>(this.length);
    for (let i = 0; i < this.length; i++) out[i] = fn(this.at(i) as T, i);
    return out;
  }

  filter(fn: (row: T) => boolean): T[] {
    const out: T[] = [];
    for (const row of this) if (fn(row)) out.push(row);
    return out;
  }

  /** A draft to append to and change: the chunks it touches are copied, once each. */
  edit(): ListDraft<T> {
    return new ListDraft(this.#chunks, this.#head, this.length, (chunks, head, length) =>
      chunks === this.#chunks && head === this.#head && length === this.length
        ? this
        : new ChunkedList(chunks, head, length),
    );
  }
}

export class ListDraft<T> {
  readonly #chunks: (readonly T[])[];
  readonly #owned = new Set<readonly T[]>();
  #head: number;
  #length: number;
  #changed = false;
  readonly #make: (chunks: readonly (readonly T[])[], head: number, length: number) => ChunkedList<T>;
  readonly #from: readonly (readonly T[])[];

  constructor(
    chunks: readonly (readonly T[])[],
    head: number,
    length: number,
    make: (chunks: readonly (readonly T[])[], head: number, length: number) => ChunkedList<T>,
  ) {
    this.#from = chunks;
    this.#chunks = chunks.slice();
    this.#head = head;
    this.#length = length;
    this.#make = make;
  }

  get length(): number {
    return this.#length;
  }

  at(index: number): T | undefined {
    const i = index < 0 ? this.#length + index : index;
    if (i < 0 || i >= this.#length) return undefined;
    const at = this.#head + i;
    return this.#chunks[at >> SHIFT]?.[at & MASK];
  }

  #own(chunk: number): T[] {
    const current = this.#chunks[chunk] ?? [];
    if (this.#owned.has(current)) return current as T[];
    const copy = current.slice();
    this.#chunks[chunk] = copy;
    this.#owned.add(copy);
    return copy;
  }

  push(row: T): void {
    const at = this.#head + this.#length;
    this.#own(at >> SHIFT)[at & MASK] = row;
    this.#length++;
    this.#changed = true;
  }

  set(index: number, row: T): void {
    if (index < 0 || index >= this.#length) throw new RangeError(`no row ${index} of ${this.#length}`);
    const at = this.#head + index;
    this.#own(at >> SHIFT)[at & MASK] = row;
    this.#changed = true;
  }

  /** Lets the oldest rows go past `max`; returns how many went. */
  keepLast(max: number): number {
    const over = this.#length - max;
    if (over <= 0) return 0;
    this.#head += over;
    this.#length = max;
    const whole = this.#head >> SHIFT;
    this.#chunks.splice(0, whole);
    this.#head -= whole << SHIFT;
    this.#changed = true;
    return over;
  }

  done(): ChunkedList<T> {
    return this.#make(this.#changed ? this.#chunks : this.#from, this.#head, this.#length);
  }
}
