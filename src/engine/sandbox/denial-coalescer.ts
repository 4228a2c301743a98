import type { SandboxDenial } from '../../platform/sandbox/launch.ts';

/** How often, at most, a target's later refusals are published. */
export const DENIAL_INTERVAL_MS = 1_000;

/** A `sandbox.denied` event's data. */
export type DeniedEvent = SandboxDenial & { codonId: string; count: number };

type Target = { count: number; publishedAt: number; pending?: SandboxDenial };

/**
 * The refusals of one codon's sandbox, coalesced (docs/agents.md#the-sandbox): a target's first
 * refusal is published at once; later ones at most once per DENIAL_INTERVAL_MS per target, with the
 * running count. Pure, given the time: the caller publishes what it returns and calls `due` at `wakeAt`.
 */
export class DenialCoalescer {
  readonly #codonId: string;
  readonly #targets = new Map<string, Target>();

  constructor(codonId: string) {
    this.#codonId = codonId;
  }

  /** A refusal at `now`: the event to publish now, if any, and when to call `due` next. */
  denied(denial: SandboxDenial, now: number): { publish?: DeniedEvent; wakeAt?: number } {
    const target = this.#targets.get(denial.target);
    if (!target) {
      this.#targets.set(denial.target, { count: 1, publishedAt: now });
      return { publish: { ...denial, codonId: this.#codonId, count: 1 } };
    }
    target.count += 1;
    if (now - target.publishedAt >= DENIAL_INTERVAL_MS) {
      target.publishedAt = now;
      target.pending = undefined;
      return { publish: { ...denial, codonId: this.#codonId, count: target.count } };
    }
    target.pending = denial;
    return { wakeAt: target.publishedAt + DENIAL_INTERVAL_MS };
  }

  /** The held refusals whose interval has passed at `now` (all of them with `flush`), and the next wake. */
  due(now: number, flush = false): { publish: DeniedEvent[]; wakeAt?: number } {
    const publish: DeniedEvent[] = [];
    let wakeAt: number | undefined;
    for (const target of this.#targets.values()) {
      if (!target.pending) continue;
      const at = target.publishedAt + DENIAL_INTERVAL_MS;
      if (flush || now >= at) {
        publish.push({ ...target.pending, codonId: this.#codonId, count: target.count });
        target.pending = undefined;
        target.publishedAt = now;
      } else wakeAt = Math.min(wakeAt ?? at, at);
    }
    return wakeAt === undefined ? { publish } : { publish, wakeAt };
  }
}
