/**
 * The request bytes the proxy holds across all exchanges, against one limit. Each exchange takes a
 * hold that grows as its body is read and is given back whole, once, when the exchange ends.
 */
export type BodyBudget = {
  readonly limit: number;
  /** Bytes held by all exchanges now. */
  readonly inFlight: number;
  open(): BodyHold;
};

export type BodyHold = {
  /** Bytes this exchange holds. */
  readonly bytes: number;
  /** Takes `bytes` more; false (and nothing taken) when that would pass the limit. */
  grow(bytes: number): boolean;
  /** Gives everything back; later calls do nothing. */
  release(): void;
};

export function createBodyBudget(limit: number): BodyBudget {
  let inFlight = 0;
  return {
    limit,
    get inFlight() {
      return inFlight;
    },
    open() {
      let held = 0;
      let released = false;
      return {
        get bytes() {
          return held;
        },
        grow(bytes) {
          if (released || inFlight + bytes > limit) return false;
          inFlight += bytes;
          held += bytes;
          return true;
        },
        release() {
          if (released) return;
          released = true;
          inFlight -= held;
          held = 0;
        },
      };
    },
  };
}
