import { describe, expect, it } from 'vitest';
import type { RibosomeClient } from '../../../src/core/client/index.ts';
import type { ServerEventOf } from '../../../src/core/protocol/index.ts';
import { e2eResources } from '../../helpers/e2e-resources.ts';
import { simplePlan } from '../../helpers/plans.ts';

const { serve } = e2eResources();

// Sonnet 4.5 ($15 per million output tokens): each answer is 1,000 output tokens, $0.015 and its
// input. 1,000 is under the least output limit the budget caps a request to, so no capped request
// is answered with more than it allowed, as a provider would not.
const LIMIT = 0.1;
const costlyTurns = (n: number) =>
  `turns:\n${Array.from(
    { length: n },
    (_, i) => `  - content:
      - tool_use: { name: Bash, input: { command: "echo step-${i}" } }
    usage: { output_tokens: 1000 }
`,
  ).join('')}`;

async function budgetStop(client: RibosomeClient): Promise<ServerEventOf<'codon.completed'>> {
  const completed = (await client.waitFor(
    (e) => e.type === 'codon.completed' && e.data.codonId === 'spend',
    60_000,
    'codon.completed',
  )) as ServerEventOf<'codon.completed'>;
  expect(completed.data.success).toBe(false);
  expect(completed.data.failureReason).toMatchObject({ type: 'budget', retriable: false });
  return completed;
}

/** The run's total cost in the last state.snapshot after the codon's end. */
async function totalCost(client: RibosomeClient): Promise<number> {
  const history = await client.syncHistory();
  const snapshot = history.findLast((e) => e.type === 'state.snapshot');
  if (snapshot?.type !== 'state.snapshot') throw new Error('no state.snapshot');
  return snapshot.data.budgets?.[0]?.spent.costUsd ?? Number.NaN;
}

describe('budgets with the proxy: the spend never passes the limit', () => {
  it('a cost limit turns the proxy on: the request the budget cannot pay for is refused before it goes out, and the codon stops for budget under its limit', async () => {
    // No --proxy: the cost limit alone turns it on, and says so (trial 30: a Codex turn passed a limit 53 times).
    const { client, server } = await serve(simplePlan(['spend']), costlyTurns(20), [
      '--max-cost',
      String(LIMIT),
    ]);
    expect(server.stderr()).toContain('the LLM proxy is on to hold the cost limit');
    const completed = await budgetStop(client);
    expect(completed.data.failureReason?.message).toMatch(
      /^plan budget exhausted: maxCostUsd 0\.10, spent 0\.\d{4}, the next request could cost 0\.\d{4}$/,
    );
    const cost = await totalCost(client);
    expect(cost).toBeGreaterThan(0.03);
    expect(cost).toBeLessThanOrEqual(LIMIT);
  });

  it("a script's answer claiming more output than the request allowed is billed at the request's limit, so the limit holds (trial 30)", async () => {
    const greedy = `turns:\n  - content:\n      - tool_use: { name: Bash, input: { command: "echo greedy" } }\n    usage: { output_tokens: 1000000 }\n  - content: [{ text: Done. }]\n`;
    const { client } = await serve(simplePlan(['spend']), greedy, ['--max-cost', '0.5']);
    const completed = await client.waitFor(
      (e) => e.type === 'codon.completed' && e.data.codonId === 'spend',
      60_000,
      'codon.completed',
    );
    expect(completed.type === 'codon.completed' && completed.data.success).toBe(true);
    const cost = await totalCost(client);
    expect(cost).toBeGreaterThan(0);
    expect(cost).toBeLessThanOrEqual(0.5);
  });

  it('--no-proxy: the same run is stopped only after its spend passed the limit', async () => {
    const { client } = await serve(simplePlan(['spend']), costlyTurns(20), [
      '--max-cost',
      String(LIMIT),
      '--no-proxy',
    ]);
    const completed = await budgetStop(client);
    expect(completed.data.failureReason?.message).toMatch(
      /^plan budget exceeded: maxCostUsd 0\.10, spent 0\.1\d{3}$/,
    );
    expect(await totalCost(client)).toBeGreaterThan(LIMIT);
  });
});
