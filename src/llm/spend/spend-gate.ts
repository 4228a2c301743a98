/**
 * The budget's side of a check before an LLM request (docs/unattended.md#budgets): the engine's
 * budgets implement SpendGate; the proxy and sentinels call `admit` before each request. The room,
 * the decision and the hold happen in one synchronous step, so two requests at once never both get
 * the same money.
 */
import { decide, type PricedCall } from './worst-case.ts';

export type SpendHold = {
  /**
   * The request is over: `actualUsd` what its answer reported; undefined when that is unknown (a cut
   * stream), and its worst case stays held until the agent reports its cost.
   */
  settle(actualUsd: number | undefined): void;
};

export type SpendGate = {
  /**
   * The money left under the tightest cost limit that counts for the codon (the active one when
   * none is named), spend held for requests in flight or not yet reported subtracted; undefined when
   * no cost limit counts.
   */
  room(codonId?: string): number | undefined;
  /** Holds `usd` for a request going out, against every limit that counts for the codon. */
  hold(usd: number, codonId?: string): SpendHold;
  /**
   * A request the budget cannot pay for (`leastUsd` at the least): its codon is stopped as a budget
   * stop does; the message says why.
   */
  refuse(leastUsd: number, codonId?: string): string;
};

export type Admission =
  /** No cost limit counts, or the model has no price: nothing held. */
  | { kind: 'free' }
  /** Go ahead, with the output limit lowered to `maxOutput` when set; settle the hold when it ends. */
  | { kind: 'forward'; hold: SpendHold; maxOutput?: number }
  | { kind: 'refuse'; message: string };

/** Checks `call` against the budget and holds its worst case when it may go. */
export function admit(gate: SpendGate, call: PricedCall, codonId?: string): Admission {
  const room = gate.room(codonId);
  if (room === undefined) return { kind: 'free' };
  const decision = decide(call, room);
  switch (decision.kind) {
    case 'unpriced':
      return { kind: 'free' };
    case 'refuse':
      return { kind: 'refuse', message: gate.refuse(decision.leastUsd, codonId) };
    case 'forward':
      return { kind: 'forward', hold: gate.hold(decision.worstUsd, codonId) };
    case 'cap':
      return {
        kind: 'forward',
        hold: gate.hold(decision.worstUsd, codonId),
        maxOutput: decision.maxOutput,
      };
  }
}
