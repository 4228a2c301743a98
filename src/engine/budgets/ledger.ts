import type { BudgetLimits, BudgetScopeKind, BudgetStatus } from '../../core/protocol/index.ts';
import { BUDGET_WARNING_SHARE } from '../../plan/unattended-schema.ts';
import { type Hold, Holds } from './holds.ts';
import { type Breach, hasLimits, type LimitName } from './limits.ts';

/** What the ledger needs of a plan codon: its runtime id, its own budget and its loop's. */
export type BudgetedCodon = {
  id: string;
  budget?: BudgetLimits;
  loop?: { id: string; budget?: BudgetLimits };
};

/** A limit reached 80 % (warning, once per scope and limit) or was passed (exceeded, once). */
export type BudgetAlert = Breach & { level: 'warning' | 'exceeded' };

type Scope = {
  kind: BudgetScopeKind;
  id: string;
  limits: BudgetLimits;
  cost: number;
  /** Part of `cost` is an estimate (an agent that reports no cost). */
  costEstimated: boolean;
  outputTokens: number;
  startedAt: number;
  /**
   * Set while none of the scope's codons is active (the plan's: while every codon is done): its shown
   * duration stands still.
   */
  frozenAt?: number;
  warned: Set<LimitName>;
  exceeded: Map<LimitName, Breach>;
};

const newScope = (kind: BudgetScopeKind, id: string, limits: BudgetLimits, now: number): Scope => ({
  kind,
  id,
  limits,
  cost: 0,
  costEstimated: false,
  outputTokens: 0,
  startedAt: now,
  warned: new Set(),
  exceeded: new Map(),
});

/**
 * Budget accounting (docs/unattended.md#budgets), pure: spend arrives as numbers with the time, and what it
 * means comes back as alerts. Scopes: the plan's (the run's budget; its clock runs from the server's
 * start), each loop's (all its iterations; from its first codon's start) and each codon's (all its
 * attempts and feedback rounds; from its start, afresh when `begin` says `fresh`). Everything counts
 * from this ledger's creation, i.e. the server's start: a restart gives a fresh allowance.
 */
export class BudgetLedger {
  readonly #plan: Scope | undefined;
  readonly #codons = new Map<string, BudgetedCodon>();
  readonly #loopScopes = new Map<string, Scope>();
  readonly #codonScopes = new Map<string, Scope>();
  /** The output tokens of each codon's current attempt so far (token.usage carries running totals). */
  readonly #tokensSeen = new Map<string, number>();
  readonly #holds = new Holds();
  #active: string | undefined;
  /** A usage-limit wait stopped these clocks at `at` (docs/unattended.md#usage-limits). */
  #paused: { at: number; scopes: Scope[] } | undefined;

  constructor(options: {
    planName: string;
    limits?: BudgetLimits;
    codons: readonly BudgetedCodon[];
    now: number;
  }) {
    this.#plan = hasLimits(options.limits)
      ? newScope('plan', options.planName, options.limits, options.now)
      : undefined;
    for (const codon of options.codons) this.#codons.set(codon.id, codon);
  }

  /** True when some scope has a limit: without one the ledger has nothing to do. */
  get limited(): boolean {
    return (
      this.#plan !== undefined ||
      [...this.#codons.values()].some((c) => hasLimits(c.budget) || hasLimits(c.loop?.budget))
    );
  }

  /**
   * A codon starts: its loop's clock starts with the loop's first codon; its own scope starts
   * afresh when `fresh` (a start by a person or the run moving on), and goes on for an automatic
   * attempt (`fresh` false).
   */
  begin(codonId: string, now: number, fresh = true): void {
    this.#active = codonId;
    this.#holds.forgetAnswered();
    if (this.#plan) delete this.#plan.frozenAt;
    this.#tokensSeen.set(codonId, 0);
    const codon = this.#codons.get(codonId);
    const loop = codon?.loop;
    if (loop && hasLimits(loop.budget)) {
      const scope = this.#loopScopes.get(loop.id);
      if (scope) delete scope.frozenAt;
      else this.#loopScopes.set(loop.id, newScope('loop', loop.id, loop.budget, now));
    }
    if (codon && hasLimits(codon.budget)) {
      const scope = this.#codonScopes.get(codonId);
      if (scope && !fresh) delete scope.frozenAt;
      else this.#codonScopes.set(codonId, newScope('codon', codonId, codon.budget, now));
    }
  }

  /** What the codon's answered requests cost that its agent never reported (a stopped Claude Code's last answer). */
  unreported(codonId: string): number {
    return this.#holds.unreported(codonId);
  }

  /** The codon's agent (and all it ran) has ended. */
  end(codonId: string, now: number): void {
    if (this.#active === codonId) this.#active = undefined;
    for (const scope of this.#scopesOf(codonId)) if (scope.kind !== 'plan') scope.frozenAt = now;
  }

  /**
   * Every codon of the plan is done: the run's clock stops (no warning or alert for a run that has
   * nothing left to do) until a codon starts again, when it counts from the server's start as before.
   */
  settle(now: number): void {
    if (this.#plan && this.#active === undefined) this.#plan.frozenAt ??= now;
  }

  get active(): string | undefined {
    return this.#active;
  }

  /**
   * A usage-limit wait begins before the codon starts again: the plan's clock and the codon's loop's
   * stand still until `resume`, and the time waited is left out of their durations.
   */
  pause(codonId: string, now: number): void {
    if (this.#paused) return;
    const loopId = this.#codons.get(codonId)?.loop?.id;
    const loop = loopId === undefined ? undefined : this.#loopScopes.get(loopId);
    const scopes = [this.#plan, loop].filter((s) => s !== undefined);
    for (const scope of scopes) scope.frozenAt ??= now;
    this.#paused = { at: now, scopes };
  }

  /** The wait ended: the stopped clocks go on from where they stood. */
  resume(now: number): void {
    const paused = this.#paused;
    if (!paused) return;
    this.#paused = undefined;
    for (const scope of paused.scopes) {
      scope.startedAt += Math.max(0, now - paused.at);
      delete scope.frozenAt;
    }
  }

  /**
   * Spend (agent or sentinel, USD) recorded for a codon; negative when an estimate was corrected.
   * `estimated`: the codon's cost is, in part, Ribosome's estimate (its agent reports no cost).
   */
  addCost(codonId: string | undefined, usd: number, now: number, estimated = false): BudgetAlert[] {
    if (usd > 0) this.#holds.reported(codonId, usd);
    return this.#scopesFor(codonId).flatMap((scope) => {
      scope.cost += usd;
      if (estimated) scope.costEstimated = true;
      return this.#check(scope, 'maxCostUsd', now);
    });
  }

  /**
   * The least money left under a cost limit that counts for the codon (the run's only when
   * undefined), spend held for requests subtracted: 0 once such a limit is exhausted; undefined when
   * no cost limit counts.
   */
  room(codonId: string | undefined): number | undefined {
    let least: number | undefined;
    for (const scope of this.#scopesFor(codonId)) {
      const left = this.#roomOf(scope);
      if (left !== undefined) least = least === undefined ? left : Math.min(least, left);
    }
    return least;
  }

  /** Holds `usd` for a request of the codon until `answer` (held.ts). */
  hold(codonId: string | undefined, usd: number): Hold {
    return this.#holds.take(codonId, usd);
  }

  /**
   * The held request ended, costing `usd` (undefined: unknown; its worst case stays held): spent
   * before its agent reports it, so it counts toward a warning now.
   */
  answer(hold: Hold, usd: number | undefined, now: number): BudgetAlert[] {
    this.#holds.answer(hold, usd);
    return this.#scopesFor(hold.codonId).flatMap((scope) => this.#check(scope, 'maxCostUsd', now));
  }

  /**
   * A request of the codon would cost `leastUsd` at the least, more than a limit leaves: the tightest
   * such scope is exhausted now (an alert, unless it already was), as a limit passed is.
   */
  exhaust(codonId: string | undefined, leastUsd: number): BudgetAlert[] {
    let tightest: { scope: Scope; room: number } | undefined;
    for (const scope of this.#scopesFor(codonId)) {
      const left = this.#roomOf(scope);
      if (left !== undefined && (tightest === undefined || left < tightest.room))
        tightest = { scope, room: left };
    }
    if (!tightest) return [];
    const { scope } = tightest;
    const known = scope.exceeded.get('maxCostUsd');
    if (known) return [];
    const breach: Breach = {
      scope: scope.kind,
      id: scope.id,
      limit: 'maxCostUsd',
      max: scope.limits.maxCostUsd ?? 0,
      spent: scope.cost + this.#heldIn(scope),
      next: leastUsd,
      ...(scope.costEstimated ? { estimated: true } : {}),
    };
    scope.exceeded.set('maxCostUsd', breach);
    scope.warned.add('maxCostUsd');
    return [{ ...breach, level: 'exceeded' }];
  }

  /** The cost breach of a scope counting for the codon, if one is exhausted. */
  costBreach(codonId: string | undefined): Breach | undefined {
    for (const scope of this.#scopesFor(codonId)) {
      const breach = scope.exceeded.get('maxCostUsd');
      if (breach) return breach;
    }
    return undefined;
  }

  /** The running total of output tokens of the codon's current attempt (a token.usage event). */
  usage(codonId: string, outputTokens: number, now: number): BudgetAlert[] {
    const delta = outputTokens - (this.#tokensSeen.get(codonId) ?? 0);
    this.#tokensSeen.set(codonId, outputTokens);
    if (delta === 0) return [];
    return this.#scopesOf(codonId).flatMap((scope) => {
      scope.outputTokens += delta;
      return this.#check(scope, 'maxOutputTokens', now);
    });
  }

  /** Wall clocks: the plan's always, the active codon's loop and codon while it runs. */
  tick(now: number): BudgetAlert[] {
    return this.#live().flatMap((scope) => this.#check(scope, 'maxDurationMs', now));
  }

  /** When `tick` next has something to say (a clock reaching 80 % or its limit); undefined: never. */
  nextCheckAt(): number | undefined {
    let next: number | undefined;
    for (const scope of this.#live()) {
      const max = scope.limits.maxDurationMs;
      if (max === undefined || scope.exceeded.has('maxDurationMs')) continue;
      const at = scope.startedAt + (scope.warned.has('maxDurationMs') ? max : max * BUDGET_WARNING_SHARE);
      next = next === undefined ? at : Math.min(next, at);
    }
    return next;
  }

  /**
   * Why the codon may not start: the plan's budget or its loop's is exhausted (a loop's clock is
   * checked here too, as it runs on between iterations). Its own budget starts afresh, so never.
   */
  refusal(codonId: string, now: number): Breach | undefined {
    const loopId = this.#codons.get(codonId)?.loop?.id;
    const loop = loopId === undefined ? undefined : this.#loopScopes.get(loopId);
    for (const scope of [this.#plan, loop]) {
      if (!scope) continue;
      this.#check(scope, 'maxDurationMs', now);
      const breach = scope.exceeded.values().next().value;
      if (breach) return breach;
    }
    return undefined;
  }

  /** Whether a breach is of a scope the codon counts in (so the codon is to stop). */
  covers(breach: Breach, codonId: string): boolean {
    if (breach.scope === 'plan') return true;
    if (breach.scope === 'codon') return breach.id === codonId;
    return this.#codons.get(codonId)?.loop?.id === breach.id;
  }

  /** Scopes worth showing: the plan's, the active codon's loop and codon, and any exhausted one. */
  status(now: number): BudgetStatus[] {
    const live = new Set(this.#live());
    const shown = [
      ...(this.#plan ? [this.#plan] : []),
      ...[...this.#loopScopes.values(), ...this.#codonScopes.values()].filter(
        (s) => live.has(s) || s.exceeded.size > 0,
      ),
    ];
    return shown.map((scope) => {
      const spent = this.#spentIn(scope);
      const state = scope.exceeded.size > 0 ? 'exceeded' : scope.warned.size > 0 ? 'warning' : 'ok';
      return {
        scope: scope.kind,
        id: scope.id,
        limits: scope.limits,
        spent: {
          // Sums of float deltas: shown to the micro-dollar, without the noise of the last bits.
          // An answer the proxy metered counts before its agent reports it (priced by Ribosome).
          costUsd: Math.round(spent.usd * 1e6) / 1e6,
          ...(scope.costEstimated || spent.metered ? { costEstimated: true as const } : {}),
          durationMs: Math.max(0, (scope.frozenAt ?? now) - scope.startedAt),
          outputTokens: scope.outputTokens,
        },
        state,
        ticking: live.has(scope),
      };
    });
  }

  #scopesOf(codonId: string): Scope[] {
    const loopId = this.#codons.get(codonId)?.loop?.id;
    const scopes = [
      this.#plan,
      loopId === undefined ? undefined : this.#loopScopes.get(loopId),
      this.#codonScopes.get(codonId),
    ];
    return scopes.filter((s) => s !== undefined);
  }

  /** The scopes spend of the codon counts in: the run's only for none. */
  #scopesFor(codonId: string | undefined): Scope[] {
    if (codonId !== undefined) return this.#scopesOf(codonId);
    return this.#plan ? [this.#plan] : [];
  }

  /** Money held for requests that count in the scope (`answered`: only answers not yet reported). */
  #heldIn(scope: Scope, answered = false): number {
    if (scope.kind === 'plan') return this.#holds.sum(() => true, answered);
    if (scope.kind === 'codon') return this.#holds.sum((codonId) => codonId === scope.id, answered);
    return this.#holds.sum(
      (codonId) => codonId !== undefined && this.#codons.get(codonId)?.loop?.id === scope.id,
      answered,
    );
  }

  /** What the scope has spent: reported costs, and answers the proxy metered that are not reported yet. */
  #spentIn(scope: Scope): { usd: number; metered: boolean } {
    const metered = this.#heldIn(scope, true);
    return { usd: scope.cost + metered, metered: metered > 1e-12 };
  }

  /** What the scope's cost limit leaves (0 once exhausted), or undefined without one. */
  #roomOf(scope: Scope): number | undefined {
    const max = scope.limits.maxCostUsd;
    if (max === undefined) return undefined;
    if (scope.exceeded.has('maxCostUsd')) return 0;
    return Math.max(0, max - scope.cost - this.#heldIn(scope));
  }

  #live(): Scope[] {
    if (this.#active === undefined)
      return this.#plan && this.#plan.frozenAt === undefined ? [this.#plan] : [];
    return this.#scopesOf(this.#active);
  }

  #check(scope: Scope, limit: LimitName, now: number): BudgetAlert[] {
    const max = scope.limits[limit];
    if (max === undefined || scope.exceeded.has(limit)) return [];
    const spent =
      limit === 'maxCostUsd'
        ? scope.cost
        : limit === 'maxOutputTokens'
          ? scope.outputTokens
          : now - scope.startedAt;
    // The warning also counts answers the proxy metered and the agent has not reported yet; passing
    // a limit is judged on reported spend alone (an answer and its report never count twice there).
    const seen = limit === 'maxCostUsd' ? this.#spentIn(scope).usd : spent;
    const breach: Breach = {
      scope: scope.kind,
      id: scope.id,
      limit,
      max,
      spent,
      ...(limit === 'maxCostUsd' && scope.costEstimated ? { estimated: true } : {}),
    };
    // A clock has run out when it reaches its limit; a cost or a token count when it goes past.
    if (limit === 'maxDurationMs' ? spent >= max : spent > max) {
      scope.exceeded.set(limit, breach);
      scope.warned.add(limit);
      return [{ ...breach, level: 'exceeded' }];
    }
    if (seen >= max * BUDGET_WARNING_SHARE && !scope.warned.has(limit)) {
      scope.warned.add(limit);
      return [{ ...breach, spent: seen, level: 'warning' }];
    }
    return [];
  }
}
