import type { RuntimeCodon } from '../../plan/index.ts';
import type { FallbackAgent } from '../../plan/usage-limit-schema.ts';

/**
 * Usage limits shared with other runs on the same credential (a batch's jobs, `ribosome run
 * --shared-limits`): a limit one run meets holds the others' automatic starts too. Keyed by agent;
 * the store keys its records by the credential the agent uses in this server.
 */
export type SharedLimits = {
  /** Until when another run found `agent` limited (epoch ms), if it still is at `now`. */
  until(agent: string, now: number): number | undefined;
  /** This run found `agent` limited until `until`. */
  note(agent: string, until: number): void;
};

/**
 * What this server knows of usage limits (docs/unattended.md#usage-limits): until when each agent
 * is limited (so a later codon of that agent goes to its fallbackAgent, or waits, instead of failing
 * against the same limit), which codons run as a fallback, and when a codon's chain of limits began.
 * In memory: a restarted server learns a limit again from the agent (one attempt), while a wait in
 * progress is read back from the journal.
 */
export class LimitedAgents {
  readonly #until = new Map<string, number>();
  readonly #fallbacks = new WeakSet<RuntimeCodon>();
  readonly #since = new Map<string, number>();
  readonly #shared: SharedLimits | undefined;

  constructor(shared?: SharedLimits) {
    this.#shared = shared;
  }

  /** `agent` is limited until `until` (epoch ms); told to the runs that share limits. */
  limit(agent: string, until: number): void {
    this.#until.set(agent, Math.max(until, this.#until.get(agent) ?? 0));
    this.#shared?.note(agent, until);
  }

  /** Until when `agent` is limited (by what this server met, or another run sharing limits), if it still is at `now`. */
  limitedUntil(agent: string, now: number): number | undefined {
    const own = this.#until.get(agent);
    if (own !== undefined && own <= now) this.#until.delete(agent);
    const shared = this.#shared?.until(agent, now);
    const until = Math.max(own !== undefined && own > now ? own : 0, shared ?? 0);
    return until > now ? until : undefined;
  }

  /** The codon as its fallbackAgent runs it: that agent, its model (else the defaults'). */
  fallbackOf(codon: RuntimeCodon, fallback: FallbackAgent): RuntimeCodon {
    const { model: _own, ...rest } = codon;
    const moved: RuntimeCodon = {
      ...rest,
      agent: fallback.agent,
      ...(fallback.model === undefined ? {} : { model: fallback.model }),
    };
    this.#fallbacks.add(moved);
    return moved;
  }

  isFallback(codon: RuntimeCodon): boolean {
    return this.#fallbacks.has(codon);
  }

  /** When the codon's chain of limits began: the first call of a chain sets it. */
  since(codonId: string, now: number): number {
    const since = this.#since.get(codonId);
    if (since !== undefined) return since;
    this.#since.set(codonId, now);
    return now;
  }

  /** The codon ended otherwise than on a limit: a later limit begins a new chain. */
  endChain(codonId: string): void {
    this.#since.delete(codonId);
  }
}
