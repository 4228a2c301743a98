/** An item that knows its place in a LiveList (-1 when in none). */
export type Slotted = { slot: number };

/**
 * The items alive now (the exchanges in flight), O(1) to add and remove: an array where the last
 * item takes a removed one's place. Not a Set on purpose: a Set that turns over thousands of short-lived
 * items per second keeps them, through the hash tables it outgrew, until the next full GC, and in a
 * big heap (the server's) every young-generation GC then copies and promotes all of them (issue 16).
 */
export class LiveList<T extends Slotted> {
  readonly #items: T[] = [];

  get size(): number {
    return this.#items.length;
  }

  add(item: T): void {
    if (item.slot !== -1) return;
    item.slot = this.#items.length;
    this.#items.push(item);
  }

  remove(item: T): void {
    const at = item.slot;
    if (at === -1 || this.#items[at] !== item) return;
    const last = this.#items.pop()!;
    if (last !== item) {
      this.#items[at] = last;
      last.slot = at;
    }
    item.slot = -1;
  }

  /** A copy, so that removing items while going through it is safe. */
  snapshot(): T[] {
    return this.#items.slice();
  }
}
