import type { EventLike } from './trigger-match.ts';

/**
 * Matches an ordered pattern of steps over a stream of events (other events may come between the
 * steps). `withinEvents` bounds a match: from its first step's event to its last, inclusive, at most
 * that many events. A completed match returns its step events and starts matching afresh, so no
 * event is part of two matches.
 *
 * At most one partial match is kept per step reached: the one that started latest, which dominates
 * any earlier one (same progress, more of its window left). Memory and work per event are therefore
 * O(steps), however long the stream.
 */
export type SequenceMatcher<E extends EventLike> = {
  /** Feeds one event; returns the step events when it completes the sequence. */
  offer(event: E): E[] | undefined;
  reset(): void;
};

type Partial<E> = { start: number; events: E[] };

export function createSequenceMatcher<E extends EventLike>(
  steps: ReadonlyArray<(event: E) => boolean>,
  withinEvents?: number,
): SequenceMatcher<E> {
  // reached[k]: the latest-started partial match that has matched steps 0..k-1 (k >= 1).
  let reached: Array<Partial<E> | undefined> = [];
  let index = 0;
  const last = steps.length;

  const fits = (p: Partial<E>) => withinEvents === undefined || index - p.start + 1 <= withinEvents;

  return {
    offer(event) {
      index++;
      // Highest step first, so one event moves a partial match by one step only.
      for (let k = last - 1; k >= 1; k--) {
        const p = reached[k];
        if (p === undefined) continue;
        if (!fits(p)) {
          reached[k] = undefined;
          continue;
        }
        if (!steps[k]!(event)) continue;
        const advanced = { start: p.start, events: [...p.events, event] };
        if (k + 1 === last) {
          reached = [];
          return advanced.events;
        }
        reached[k] = undefined;
        const ahead = reached[k + 1];
        if (ahead === undefined || ahead.start < advanced.start) reached[k + 1] = advanced;
      }
      if (steps[0]!(event)) {
        const fresh = { start: index, events: [event] };
        if (last === 1) {
          reached = [];
          return fresh.events;
        }
        reached[1] = fresh;
      }
      return undefined;
    },
    reset() {
      reached = [];
      index = 0;
    },
  };
}
