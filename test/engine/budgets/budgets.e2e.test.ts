import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RibosomeClient } from '../../../src/core/client/index.ts';
import type { EventType, ServerEvent, ServerEventOf } from '../../../src/core/protocol/index.ts';
import { e2eResources } from '../../helpers/e2e-resources.ts';
import { simplePlan, stuckTurns, writeTurns } from '../../helpers/plans.ts';
import { pidsWith } from '../../helpers/processes.ts';
import { EMPTY_PLAN, runCli, tempDir } from '../../helpers/server-process.ts';
import { startReceiver } from '../../host/notify/receiver.ts';

const { serve, temps } = e2eResources();

const marker = () => 3000 + Math.floor(Math.random() * 5000);

/** The first event of `type` matching, whether it came before this call (history) or comes later. */
function seen<T extends EventType>(
  client: RibosomeClient,
  type: T,
  match: (e: ServerEventOf<T>) => boolean = () => true,
  timeoutMs = 30_000,
): Promise<ServerEventOf<T>> {
  const test = (e: { type: string }) => e.type === type && match(e as ServerEventOf<T>);
  const before = [...client.handshake.eventHistory, ...client.received].find(test);
  if (before) return Promise.resolve(before as ServerEventOf<T>);
  return client.waitFor(test, timeoutMs, type) as Promise<ServerEventOf<T>>;
}

const errorsWith = (history: readonly ServerEvent[], code: string) =>
  history.filter((e): e is ServerEventOf<'error'> => e.type === 'error' && e.data.code === code);

describe('budgets', () => {
  it('--max-cost: usage past the budget mid-codon stops the agent tree, fails the codon and holds the run', async () => {
    const m = marker();
    // Sonnet 4.5 input at $3 per million: 280k tokens are $0.84 (a warning), 100k more pass $1.00. (Input:
    // the output a script reports never passes the request's max_tokens.) Without the proxy, which
    // would check each request first: spend is checked as it is reported.
    const script = `turns:
  - content:
      - tool_use: { name: Bash, input: { command: "sleep ${m} >/dev/null 2>&1 &" } }
    usage: { input_tokens: 280000 }
  - content:
      - tool_use: { name: Bash, input: { command: "true" } }
    usage: { input_tokens: 100000 }
${stuckTurns(m + 1)}`;
    const { client } = await serve(simplePlan(['spend', 'after']), script, ['--max-cost', '1', '--no-proxy']);
    expect(client.serverInfo.budget).toEqual({ maxCostUsd: 1 });
    const completed = await seen(client, 'codon.completed', (e) => e.data.codonId === 'spend');
    expect(completed.data.success).toBe(false);
    expect(completed.data.failureReason).toMatchObject({ type: 'budget', retriable: false });
    expect(completed.data.failureReason?.message).toMatch(
      /^plan budget exceeded: maxCostUsd 1\.00, spent 1\.\d{4}$/,
    );
    // The stop ended the agent's whole tree, the sleep it left in the background too.
    expect(pidsWith(`sleep ${m}`)).toEqual([]);
    expect(pidsWith(`sleep ${m + 1}`)).toEqual([]);
    const idle = await seen(client, 'server.idle', (e) => e.data.lastEnded?.codonId === 'spend');
    expect(idle.data).toMatchObject({ reason: 'codon-completed', nextCodonId: 'spend', heldBy: 'budget' });
    // It does not claim codon.next would start the codon: it says why it will not.
    expect(idle.data.message).toMatch(
      /codon\.next starts spend; not starting spend: the plan budget exceeded: maxCostUsd 1\.00/,
    );

    const refused = client.next(
      'error',
      (e) => e.data.code === 'BUDGET_EXCEEDED' && e.data.commandId !== undefined,
    );
    client.send('codon.next');
    expect((await refused).data.message).toMatch(
      /^not starting spend: the plan budget exceeded: maxCostUsd 1\.00, spent 1\.\d{4}; restart the server with a higher --max-cost/,
    );

    const history = await client.syncHistory();
    const warnings = errorsWith(history, 'BUDGET_WARNING');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]?.data).toMatchObject({ severity: 'warning', fatal: false, context: 'plan' });
    expect(warnings[0]?.data.message).toMatch(/^plan budget at 8\d %: maxCostUsd 1\.00, spent 0\.8\d{3}$/);
    const exceeded = errorsWith(history, 'BUDGET_EXCEEDED');
    expect(exceeded.map((e) => e.data)).toMatchObject([
      { severity: 'codon', codon: 'spend', context: 'budget' },
    ]);
    expect(history.some((e) => e.type === 'codon.started' && e.data.codonId === 'after')).toBe(false);
    const snapshot = history.findLast((e) => e.type === 'state.snapshot');
    expect(snapshot?.type === 'state.snapshot' && snapshot.data.budgets).toMatchObject([
      { scope: 'plan', id: 'test', limits: { maxCostUsd: 1 }, state: 'exceeded' },
    ]);
  });

  it('--max-time: a stuck codon is stopped once the run has used its time, and no codon starts after it', async () => {
    const m = marker();
    const { client } = await serve(simplePlan(['stuck']), `turns:\n${stuckTurns(m)}`, ['--max-time', '4s']);
    const completed = await seen(client, 'codon.completed', (e) => e.data.codonId === 'stuck');
    expect(completed.data.failureReason).toMatchObject({ type: 'budget', retriable: false });
    expect(completed.data.failureReason?.message).toMatch(
      /^plan budget exceeded: maxDurationMs 4000, spent \d+/,
    );
    expect(pidsWith(`sleep ${m}`)).toEqual([]);
    await seen(client, 'server.idle', (e) => e.data.lastEnded?.codonId === 'stuck');
    const refused = client.next('error', (e) => e.data.commandId !== undefined);
    client.send('codon.start', { codonId: 'stuck' });
    expect((await refused).data).toMatchObject({ code: 'BUDGET_EXCEEDED' });
    expect((await refused).data.message).toContain('--max-time');
    const history = await client.syncHistory();
    expect(errorsWith(history, 'BUDGET_WARNING').map((e) => e.data.message)).toEqual([
      expect.stringMatching(/^plan budget at \d+ %: maxDurationMs 4000, spent \d+$/),
    ]);
  });

  it("--max-time runs from the server's start: idle past it, the run says so once and refuses to start", async () => {
    const { client } = await serve(simplePlan(['one']), 'turns: []\n', [
      '--max-time',
      '2s',
      '--no-autostart',
    ]);
    const over = await seen(client, 'error', (e) => e.data.code === 'BUDGET_EXCEEDED');
    expect(over.data).toMatchObject({ severity: 'warning', context: 'plan' });
    expect(over.data.message).toMatch(
      /^plan budget exceeded: maxDurationMs 2000, spent \d+; codons that count in it are refused/,
    );
    const refused = client.next('error', (e) => e.data.commandId !== undefined);
    client.send('codon.next');
    expect((await refused).data).toMatchObject({ code: 'BUDGET_EXCEEDED' });
    const history = await client.syncHistory();
    expect(history.some((e) => e.type === 'codon.started')).toBe(false);
    expect(errorsWith(history, 'BUDGET_EXCEEDED').filter((e) => e.data.commandId === undefined)).toHaveLength(
      1,
    );
  });

  it('--max-time: a run that finished in time is not reported over budget later, yet a redo past the time is refused', async () => {
    const hook = await startReceiver();
    try {
      const plan = `${simplePlan(['one'])}notify:\n  - webhook: "${hook.url}/hook"\n`;
      const { client } = await serve(plan, `turns:\n${writeTurns('one.txt', 'one')}`, ['--max-time', '8s']);
      const done = await seen(client, 'server.idle', (e) => e.data.reason === 'all-codons-completed');
      await hook.waitFor(1);
      // The run's clock started with the server: a snapshot says how far it had run at its time.
      const snapshot = await seen(client, 'state.snapshot', (e) => e.data.budgets !== undefined);
      const serverStart =
        Date.parse(snapshot.timestamp) - (snapshot.data.budgets?.[0]?.spent.durationMs ?? 0);
      // Past the run's time (its timer would have fired by now), with nothing left to run.
      await new Promise((r) => setTimeout(r, Math.max(0, serverStart + 9_000 - Date.now())));
      const refused = client.next('error', (e) => e.data.commandId !== undefined);
      client.send('codon.redo');
      expect((await refused).data).toMatchObject({ code: 'BUDGET_EXCEEDED' });
      const history = await client.syncHistory();
      const after = history.slice(history.findIndex((e) => e.id === done.id));
      const unasked = after.filter(
        (e) =>
          e.type === 'error' &&
          (e.data.code === 'BUDGET_WARNING' || e.data.code === 'BUDGET_EXCEEDED') &&
          e.data.commandId === undefined,
      );
      expect(unasked).toEqual([]);
      expect(hook.received.map((r) => r.body.event)).toEqual(['run-completed']);
    } finally {
      await hook.close();
    }
  }, 60_000);

  it("a codon's own maxOutputTokens counts the agent's output tokens", async () => {
    const m = marker();
    const plan = `name: test
agent: builtin
codons:
  - id: chatty
    name: Chatty
    prompt: Do chatty.
    budget: { maxOutputTokens: 1000 }
`;
    const script = `turns:
  - content:
      - tool_use: { name: Bash, input: { command: "true" } }
    usage: { output_tokens: 1500 }
${stuckTurns(m)}`;
    const { client } = await serve(plan, script);
    const completed = await seen(client, 'codon.completed', (e) => e.data.codonId === 'chatty');
    expect(completed.data.failureReason).toMatchObject({
      type: 'budget',
      message: 'codon chatty budget exceeded: maxOutputTokens 1000, spent 1500',
    });
    expect(pidsWith(`sleep ${m}`)).toEqual([]);
  });

  it.each([
    [['--max-cost', 'lots'], '--max-cost must be a positive number of US dollars'],
    [['--max-cost', '0'], '--max-cost must be a positive number of US dollars'],
    [['--max-time', '5 minutes'], '--max-time must be a duration such as 90s, 30m or 2h'],
    [['--max-time', '0s'], '--max-time must be a duration such as 90s, 30m or 2h'],
  ])('refuses %j with exit 2 and says what it takes', async (flags, says) => {
    const t = tempDir();
    temps.push(t);
    const cli = runCli(['run', EMPTY_PLAN, '--headless', '--execution', join(t.path, 'exec'), ...flags]);
    expect((await cli.exited).code).toBe(2);
    expect(cli.stderr()).toContain(says);
  });
});
