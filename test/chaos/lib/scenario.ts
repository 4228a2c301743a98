/**
 * What a fault scenario is and what it reports. A scenario injects faults into real `ribosome`
 * processes and checks, after each, that the server either kept serving or exited with a documented
 * code after a fatal event, never with a stack trace, and that the resume invariants still hold
 * (no lost events, state = journal fold = git, no orphans). It records its figures in a Tally; a
 * problem is a failure line, and the scenario goes on where it can.
 */

import { RSS_BOUND_MIB } from './server.ts';

export type ChaosContext = {
  seed: number;
  /** The short version (the one `npm test` runs). */
  short: boolean;
  /** Date.now() after which a long scenario stops injecting faults and winds down. */
  deadline: number;
  /** A random number in [0, 1) from the seeded generator. */
  random: () => number;
  tally: Tally;
  log: (line: string) => void;
  /** Runs `fn` when the scenario ends, whatever happened (last registered, first run). */
  defer: (fn: () => unknown) => void;
  /** Ends the scenario as skipped, with the reason printed in the summary. */
  skip: (reason: string) => never;
};

export type Scenario = {
  name: string;
  /** One line: the faults it injects and what it expects. */
  summary: string;
  run: (ctx: ChaosContext) => Promise<void>;
};

/** Figures of one scenario (the runner adds them up; docs/operations.md#reliability quotes them). */
export class Tally {
  kills = 0;
  eventsChecked = 0;
  eventsLost = 0;
  framesFuzzed = 0;
  /** Server processes that died of a fault (any exit we did not cause that is not a documented one). */
  crashes = 0;
  faults = 0;
  /** How each injected fault ended, by kind. */
  readonly outcomes = new Map<string, number>();
  peakRssKiB = 0;
  readonly failures: string[] = [];

  fail(message: string): void {
    this.failures.push(message);
  }

  /** One injected fault and how it ended. */
  fault(outcome: string): void {
    this.faults += 1;
    this.outcomes.set(outcome, (this.outcomes.get(outcome) ?? 0) + 1);
  }

  rss(kib: number | undefined): void {
    if (kib !== undefined) this.peakRssKiB = Math.max(this.peakRssKiB, kib);
  }
}

export class Skipped extends Error {
  override name = 'Skipped';
}

export type ScenarioResult = {
  name: string;
  skipped: string | undefined;
  tally: Tally;
  seconds: number;
};

/** A small seeded generator (mulberry32): the same seed injects the same faults in the same order. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Runs one scenario: its deferred cleanups always run; an exception is one more failure. */
export async function runScenario(
  scenario: Scenario,
  options: { seed: number; short: boolean; minutes: number; log?: (line: string) => void },
): Promise<ScenarioResult> {
  const started = Date.now();
  const tally = new Tally();
  const cleanups: Array<() => unknown> = [];
  const log = options.log ?? (() => {});
  const ctx: ChaosContext = {
    seed: options.seed,
    short: options.short,
    deadline: started + options.minutes * 60_000,
    random: seededRandom(options.seed),
    tally,
    log: (line) => log(`[${scenario.name}] ${line}`),
    defer: (fn) => cleanups.push(fn),
    skip: (reason) => {
      throw new Skipped(reason);
    },
  };
  let skipped: string | undefined;
  try {
    await scenario.run(ctx);
  } catch (error) {
    if (error instanceof Skipped) skipped = error.message;
    else tally.fail(`the scenario stopped: ${(error as Error)?.stack ?? String(error)}`);
  } finally {
    for (const cleanup of cleanups.reverse()) {
      try {
        await cleanup();
      } catch (error) {
        tally.fail(`cleanup failed: ${(error as Error).message}`);
      }
    }
  }
  // Every scenario holds the server under the same memory bound (those that push it say more).
  if (tally.peakRssKiB > RSS_BOUND_MIB * 1024 && !tally.failures.some((f) => f.includes('RSS')))
    tally.fail(
      `the server's RSS reached ${(tally.peakRssKiB / 1024).toFixed(0)} MiB, over ${RSS_BOUND_MIB} MiB`,
    );
  return { name: scenario.name, skipped, tally, seconds: (Date.now() - started) / 1000 };
}

/** Picks one of `items` with the seeded generator. */
export function pick<T>(random: () => number, items: readonly T[]): T {
  return items[Math.floor(random() * items.length)] as T;
}
