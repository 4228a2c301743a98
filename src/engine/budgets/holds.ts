/**
 * Money held against budgets for LLM requests the agents' reports have not counted yet
 * (docs/unattended.md#budgets): a request's worst case while it is in flight, then what its answer
 * said it cost (or the worst case still, when that is unknown) until the agent reports its cost.
 * Pure.
 */

export type Hold = {
  /** The codon the request counts for; undefined: the run only. */
  codonId: string | undefined;
  state: 'in-flight' | 'answered';
  /** The worst case in flight; once answered, what it cost. */
  usd: number;
};

export class Holds {
  readonly #holds: Hold[] = [];

  /** Holds `usd` for a request of the codon going out. */
  take(codonId: string | undefined, usd: number): Hold {
    const hold: Hold = { codonId, state: 'in-flight', usd };
    this.#holds.push(hold);
    return hold;
  }

  /** The request ended: `usd` what it cost (undefined: unknown, its worst case stays). */
  answer(hold: Hold, usd: number | undefined): void {
    if (hold.state !== 'in-flight') return;
    hold.state = 'answered';
    if (usd !== undefined) hold.usd = Math.min(hold.usd, Math.max(0, usd));
    this.#prune();
  }

  /**
   * The codon's agent reported `usd` of cost: it pays off the codon's answered holds, oldest first
   * (a report comes after its answer; one still in flight is not yet reported).
   */
  reported(codonId: string | undefined, usd: number): void {
    let left = usd;
    for (const hold of this.#holds) {
      if (left <= 0) break;
      if (hold.codonId !== codonId || hold.state !== 'answered') continue;
      const paid = Math.min(hold.usd, left);
      hold.usd -= paid;
      left -= paid;
    }
    this.#prune();
  }

  /**
   * A codon starts: answers earlier codons never reported are let go (their agents have ended and
   * reported what they will). Requests still in flight stay held.
   */
  forgetAnswered(): void {
    for (let i = this.#holds.length - 1; i >= 0; i--) {
      if (this.#holds[i]?.state === 'answered') this.#holds.splice(i, 1);
    }
  }

  /** What the codon's answered requests cost that its agent has not reported (yet). */
  unreported(codonId: string): number {
    let total = 0;
    for (const hold of this.#holds)
      if (hold.codonId === codonId && hold.state === 'answered') total += hold.usd;
    return total;
  }

  /** The money held for requests `counts` takes (`answered`: only those answered, spent for sure). */
  sum(counts: (codonId: string | undefined) => boolean, answered = false): number {
    let total = 0;
    for (const hold of this.#holds)
      if (counts(hold.codonId) && (!answered || hold.state === 'answered')) total += hold.usd;
    return total;
  }

  #prune(): void {
    for (let i = this.#holds.length - 1; i >= 0; i--) {
      const hold = this.#holds[i];
      if (hold && hold.state === 'answered' && hold.usd <= 1e-12) this.#holds.splice(i, 1);
    }
  }
}
