import type { Logger } from 'pino';
import type { BudgetLimits, BudgetStatus } from '../core/protocol/index.ts';
import { codonOf, runOf } from '../execution/state/reducer.ts';
import type { SpendGate } from '../llm/spend/spend-gate.ts';
import { type BudgetAlert, type BudgetedCodon, BudgetLedger } from './budgets/ledger.ts';
import { exceededMessage, refusalMessage, warningMessage } from './budgets/limits.ts';
import type { Recorder } from './recorder.ts';

export type BudgetKeeperOptions = {
  planName: string;
  /** The run's budget (the plan's under the config file and the command line). */
  limits: BudgetLimits | undefined;
  codons: readonly BudgetedCodon[];
  recorder: Recorder;
  logger: Logger;
  /** Stops the active codon for its budget; undefined when there is nothing (left) to stop. */
  stopActive: (message: string) => Promise<void> | undefined;
  /** A limit ran out while no codon of it ran (a usage-limit wait that counts, countWait): told why. */
  exhausted?: (message: string) => void;
  /** Publishes a state.snapshot (its `budgets` come from `status`). */
  snapshot: () => Promise<unknown>;
  now?: () => number;
};

/** Transitions that change a codon's cost. */
const COST_TRANSITIONS = new Set(['CostsIncremented', 'CostsUpdated', 'CodonFinalCostSet']);

/**
 * The budget ledger's shell: feeds it every cost transition as it is applied and every token.usage
 * event (through the recorder), runs a timer for the wall clocks, and acts on what it says: a
 * warning event at 80 %, and past a limit a stop of the codon that counts in the scope (failureReason
 * type budget). With no limit anywhere it watches nothing.
 */
export class BudgetKeeper {
  readonly #o: BudgetKeeperOptions;
  readonly #ledger: BudgetLedger;
  readonly #now: () => number;
  readonly #limited: boolean;
  #timer: NodeJS.Timeout | undefined;
  #closed = false;

  constructor(options: BudgetKeeperOptions) {
    this.#o = options;
    this.#now = options.now ?? Date.now;
    this.#ledger = new BudgetLedger({
      planName: options.planName,
      ...(options.limits ? { limits: options.limits } : {}),
      codons: options.codons,
      now: this.#now(),
    });
    this.#limited = this.#ledger.limited;
    if (!this.#limited) return;
    options.recorder.watch({
      transition: (t, before, after) => {
        if (!COST_TRANSITIONS.has(t.type) || !('codonId' in t.data)) return;
        const delta = after.totalCost - before.totalCost;
        if (delta === 0) return;
        const { runId, codonId } = t.data;
        const estimated =
          codonId !== undefined && codonOf(runOf(after, runId), codonId)?.costEstimated === true;
        this.#act(this.#ledger.addCost(codonId, delta, this.#now(), estimated));
      },
      event: (type, data) => {
        if (type !== 'token.usage') return;
        const usage = data as { codonId: string; outputTokens: number };
        this.#act(this.#ledger.usage(usage.codonId, usage.outputTokens, this.#now()));
      },
    });
    this.#arm();
  }

  /** A codon is about to start; `fresh` false for an automatic attempt (its own budget goes on). */
  begin(codonId: string, fresh = true): void {
    if (!this.#limited) return;
    this.#ledger.begin(codonId, this.#now(), fresh);
    this.#arm();
  }

  /** The codon's agent has ended (its final costs may still arrive, and still count). */
  end(codonId: string): void {
    if (!this.#limited) return;
    this.#ledger.end(codonId, this.#now());
    this.#arm();
  }

  /** What the proxy saw the codon's answers cost that its agent never reported; 0 without limits. */
  unreported(codonId: string): number {
    return this.#limited ? this.#ledger.unreported(codonId) : 0;
  }

  /** A usage-limit wait begins: the plan's and the codon's loop's wall clocks stop (budgets/ledger.ts pause). */
  pauseClock(codonId: string): void {
    if (!this.#limited) return;
    this.#ledger.pause(codonId, this.#now());
    this.#arm();
  }

  /** The wait ended: those clocks go on, the wait left out. */
  resumeClock(): void {
    if (!this.#limited) return;
    this.#ledger.resume(this.#now());
    this.#arm();
  }

  /** Every codon is done: the run's clock stops until a codon starts again. */
  settle(): void {
    if (!this.#limited) return;
    this.#ledger.settle(this.#now());
    this.#arm();
  }

  /** Why a codon may not start now (an exhausted plan or loop budget), as a message saying how to raise it. */
  refusal(codonId: string): string | undefined {
    if (!this.#limited) return undefined;
    const breach = this.#ledger.refusal(codonId, this.#now());
    return breach ? refusalMessage(breach, codonId) : undefined;
  }

  /**
   * The check before each LLM request (the proxy's, a sentinel's): what the cost limits leave, a hold
   * for a request in flight, and a refusal that stops the codon as a limit passed does. Without a
   * limit anywhere it lets everything through.
   */
  readonly spendGate: SpendGate = {
    room: (codonId) => (this.#limited ? this.#ledger.room(codonId ?? this.#ledger.active) : undefined),
    hold: (usd, codonId) => {
      const hold = this.#ledger.hold(codonId ?? this.#ledger.active, usd);
      return { settle: (actual) => this.#act(this.#ledger.answer(hold, actual, this.#now())) };
    },
    refuse: (leastUsd, codonId) => {
      const codon = codonId ?? this.#ledger.active;
      this.#act(this.#ledger.exhaust(codon, leastUsd));
      const breach = this.#ledger.costBreach(codon);
      return breach ? exceededMessage(breach) : 'the budget cannot pay for this request';
    },
  };

  /** For state.snapshot: undefined when no budget is set. */
  status(): BudgetStatus[] | undefined {
    if (!this.#limited) return undefined;
    const status = this.#ledger.status(this.#now());
    return status.length > 0 ? status : undefined;
  }

  close(): void {
    this.#closed = true;
    clearTimeout(this.#timer);
  }

  #arm(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    const at = this.#closed ? undefined : this.#ledger.nextCheckAt();
    if (at === undefined) return;
    // setTimeout takes at most 2^31-1 ms; a later clock is looked at again then.
    const delay = Math.min(Math.max(0, at - this.#now()), 2_147_483_647);
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#act(this.#ledger.tick(this.#now()));
      this.#arm();
    }, delay);
    this.#timer.unref();
  }

  #act(alerts: readonly BudgetAlert[]): void {
    if (alerts.length === 0 || this.#closed || this.#o.recorder.halted) return;
    const fail = (error: unknown) => this.#o.logger.error({ err: error }, 'reporting a budget failed');
    const active = this.#ledger.active;
    for (const alert of alerts) {
      if (alert.level === 'warning') {
        this.#o.logger.warn({ budget: alert }, warningMessage(alert));
        this.#o.recorder
          .publish('error', {
            message: warningMessage(alert),
            fatal: false,
            severity: 'warning',
            code: 'BUDGET_WARNING',
            context: alert.scope,
            ...(active ? { codon: active } : {}),
          })
          .catch(fail);
        continue;
      }
      const message = exceededMessage(alert);
      this.#o.logger.warn({ budget: alert }, message);
      // The codon's own error event (code BUDGET_EXCEEDED) then says it; otherwise this one does.
      const stopping = active && this.#ledger.covers(alert, active) ? this.#o.stopActive(message) : undefined;
      if (stopping) {
        stopping.catch(fail);
        continue;
      }
      this.#o.recorder
        .publish('error', {
          message: `${message}; codons that count in it are refused from now on`,
          fatal: false,
          severity: 'warning',
          code: 'BUDGET_EXCEEDED',
          context: alert.scope,
        })
        .catch(fail);
      this.#o.exhausted?.(message);
    }
    void this.#o.snapshot();
    this.#arm();
  }
}
