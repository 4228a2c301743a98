/** What follows a codon a sentinel stopped to roll back (docs/sentinels.md#sentinel-actions). */
export type FollowUp = {
  run(): Promise<void>;
  /** It cannot run (the codon's end failed to be recorded): the rollback is given up, and said so. */
  drop(why: string): void;
};

/**
 * Rollback admission. A rollback is taken before its turn: a client's command waits for its turn in
 * the engine's queue, a sentinel's rollback or redo for its codon's end (it then runs in that end's
 * own task, in place of the usual decision). From the moment one is taken until it is done, the
 * server refuses state changes (ROLLBACK_IN_PROGRESS), so no command slips in between; the one after
 * it is refused too, by the server for a client, here for a sentinel. `underWay`: a rollback's turn
 * has come and it runs (the orchestrator's state says so).
 */
export class RollbackAdmission {
  readonly #underWay: () => boolean;
  /** Client rollback commands taken whose turn has not come. */
  #waiting = 0;
  /** A sentinel's rollback, held for its codon's end. */
  #held: { codonId: string; followUp: FollowUp } | undefined;

  constructor(underWay: () => boolean) {
    this.#underWay = underWay;
  }

  /** A rollback waits or runs: the server refuses state changes. */
  get busy(): boolean {
    return this.#underWay() || this.#waiting > 0 || this.#held !== undefined;
  }

  /** A client's rollback command is taken: it waits for its turn. */
  queueCommand(): void {
    this.#waiting += 1;
  }

  /** A client's rollback command's turn has come: it no longer waits (it runs, or is refused). */
  commandTurn(): void {
    if (this.#waiting === 0) throw new Error('a rollback command had its turn without being queued');
    this.#waiting -= 1;
  }

  /** Why a sentinel's rollback may not be taken now, or undefined. */
  sentinelRefusal(): string | undefined {
    return this.busy ? 'a rollback is already under way' : undefined;
  }

  /** Holds a sentinel's rollback for codon `codonId`'s end (once sentinelRefusal said yes). */
  hold(codonId: string, followUp: FollowUp): void {
    if (this.busy) throw new Error(`a rollback for codon ${codonId} was held while another is under way`);
    this.#held = { codonId, followUp };
  }

  /** At codon `codonId`'s end: the rollback held for it, taken once (it no longer waits). */
  takeHeld(codonId: string): FollowUp | undefined {
    if (this.#held?.codonId !== codonId) return undefined;
    const { followUp } = this.#held;
    this.#held = undefined;
    return followUp;
  }
}
