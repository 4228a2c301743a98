/**
 * A token bucket: up to `burst` at once, then `perSecond` on average. The clock is given to each
 * call (milliseconds), so the bucket itself is pure and table-tested.
 */
export class TokenBucket {
  readonly perSecond: number;
  readonly burst: number;
  #tokens: number;
  #at: number;

  constructor(limits: { perSecond: number; burst: number }, now: number) {
    this.perSecond = limits.perSecond;
    this.burst = limits.burst;
    this.#tokens = limits.burst;
    this.#at = now;
  }

  /** Takes one token at `now`; false, taking none, when the bucket is empty. */
  take(now: number): boolean {
    // A clock that went back refills nothing (and takes nothing away).
    const elapsed = Math.max(0, now - this.#at);
    this.#tokens = Math.min(this.burst, this.#tokens + (elapsed / 1000) * this.perSecond);
    this.#at = Math.max(this.#at, now);
    if (this.#tokens < 1) return false;
    this.#tokens -= 1;
    return true;
  }

  /** Milliseconds from `now` until `take` succeeds again (0 when it would now). */
  waitMs(now: number): number {
    const tokens = Math.min(this.burst, this.#tokens + (Math.max(0, now - this.#at) / 1000) * this.perSecond);
    return tokens >= 1 ? 0 : Math.ceil(((1 - tokens) / this.perSecond) * 1000);
  }
}
