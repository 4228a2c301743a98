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
  const budget = {
    limit,
    inFlight: 0,
    open: (): BodyHold => new Hold(budget),
  };
  return budget;
}

/**
 * A class, not an object literal with a getter: a literal with an accessor is built by a runtime call
 * per exchange (about a microsecond; issue 16).
 */
class Hold implements BodyHold {
  readonly #budget: { limit: number; inFlight: number };
  #held = 0;
  #released = false;

  constructor(budget: { limit: number; inFlight: number }) {
    this.#budget = budget;
  }

  get bytes(): number {
    return this.#held;
  }

  grow(bytes: number): boolean {
    const budget = this.#budget;
    if (this.#released || budget.inFlight + bytes > budget.limit) return false;
    budget.inFlight += bytes;
    this.#held += bytes;
    return true;
  }

  release(): void {
    if (this.#released) return;
    this.#released = true;
    this.#budget.inFlight -= this.#held;
    this.#held = 0;
  }
}
