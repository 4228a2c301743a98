/**
 * The short version of scenarios as vitest tests (what `npm test` runs of the campaign): one test
 * per scenario, seeded (CHAOS_SEED replays), failing with every problem the scenario found, and
 * skipped (with the reason) where the machine cannot inject the fault.
 */
import { expect, it } from 'vitest';
import { runScenario, type Scenario } from './scenario.ts';

const seed = process.env.CHAOS_SEED ? Number(process.env.CHAOS_SEED) : Math.floor(Math.random() * 0x7fffffff);

export function shortRuns(scenarios: readonly Scenario[]): void {
  for (const scenario of scenarios) {
    it(`${scenario.name}: ${scenario.summary} (seed ${seed})`, async (t) => {
      const result = await runScenario(scenario, { seed, short: true, minutes: 1 });
      if (result.skipped) {
        process.stdout.write(`chaos ${scenario.name} skipped: ${result.skipped}\n`);
        t.skip(result.skipped);
        return;
      }
      expect(
        result.tally.failures,
        `chaos ${scenario.name} (CHAOS_SEED=${seed} replays; npm run chaos -- --only ${scenario.name} runs it longer)`,
      ).toEqual([]);
    }, 180_000); // A scenario that fails waits out its bounds (a server that never settles: about a minute).
  }
}
