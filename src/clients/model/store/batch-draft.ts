/**
 * Folding a batch of events with one copy of what they change, not one per event. While a batch
 * folds (`inFoldBatch`), an object the batch copied is its own: later events of the batch change it
 * in place (`draftOf` gives it back as it is) instead of copying it again. Nothing outside the batch
 * ever saw it (the states in between are dropped), and the batch's result is never changed once
 * published: outside a batch, and for anything the batch did not make, `draftOf` copies.
 */

let owned: Set<object> | undefined;

/** Runs `fold` as one batch (inside one already running: as part of it). */
export function inFoldBatch<T>(fold: () => T): T {
  if (owned) return fold();
  owned = new Set();
  try {
    return fold();
  } finally {
    owned = undefined;
  }
}

export function isBatching(): boolean {
  return owned !== undefined;
}

/** Whether the running batch made `value` (and may change it in place). */
export function isDraft(value: object): boolean {
  return owned?.has(value) === true;
}

/** `value` made by the running batch, to change in place: later `draftOf` of it give it back as it is. */
export function adopt<T extends object>(value: T): T {
  owned?.add(value);
  return value;
}

/** `value` to change: itself when the running batch made it, else a shallow copy (the batch's own). */
export function draftOf<T extends object>(value: T): T {
  if (owned?.has(value)) return value;
  return adopt((Array.isArray(value) ? value.slice() : { ...value }) as T);
}
