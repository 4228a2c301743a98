/**
 * A job's metrics read from real executions: plans run by the real binary on the scripted provider
 * (passed, a failed gate fed back and an automatic retry, a gate that fails the job, a rollback, a
 * running codon stopped), read without a server and while one writes.
 */
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { jobMetrics, type MetricsCache } from '../../../../src/clients/batch/results/job-metrics.ts';
import { e2eResources } from '../../../helpers/e2e-resources.ts';
import { codonScript, simplePlan, writePlanAndScript, writeTurns } from '../../../helpers/plans.ts';
import { pidsWith, waitFor } from '../../../helpers/processes.ts';
import { journalRows, runToEnd, tempDir } from '../../../helpers/server-process.ts';

const { temps, serve } = e2eResources();

function temp(): string {
  const t = tempDir();
  temps.push(t);
  return t.path;
}

/** Runs `plan` on `script` to its end in a new execution; its directory and exit code. */
async function ran(plan: string, script: string, env: NodeJS.ProcessEnv = {}) {
  const dir = temp();
  const files = writePlanAndScript(dir, plan, script);
  const exec = join(dir, 'exec');
  const run = await runToEnd(files.plan, exec, files.script, [], { env });
  return { exec, code: run.code, stderr: run.stderr };
}

/** What the journal says each codon cost (its codon.completed) and the output tokens of every attempt. */
function journalTotals(exec: string) {
  let cost = 0;
  let output = 0;
  const attempt = new Map<string, number>();
  for (const e of journalRows(exec)) {
    const codonId = String(e.data.codonId);
    if (e.type === 'codon.completed') cost += Number(e.data.cost);
    // token.usage counts up within an attempt; a new attempt starts from zero.
    if (e.type === 'codon.started') output += attempt.get(codonId) ?? 0;
    if (e.type === 'codon.started') attempt.set(codonId, 0);
    if (e.type === 'token.usage') attempt.set(codonId, Number(e.data.outputTokens));
  }
  for (const n of attempt.values()) output += n;
  return { cost, output };
}

const GATED = (codon: string, extra = '') => `  - id: ${codon}
    prompt: Do ${codon}.
    verify:
      - run: "grep -q good ${codon}.txt || { echo 'GATE-SAYS: ${codon}.txt must say good'; exit 4; }"
        timeoutMs: 20000
${extra}`;

/** Codon `codon` writes "bad" first; the feedback round (its prompt carries the gate's words) writes "good". */
const FIXED_ON_FEEDBACK = (codon: string) => `  - name: fix-${codon}
    match: { firstUser: "Do ${codon}.", lastUser: "GATE-SAYS: ${codon}.txt must say good" }
    turns:
      - content:
          - tool_use: { name: Write, input: { file_path: ${codon}.txt, content: "good" } }
      - content: [{ text: "Fixed." }]
  - name: ${codon}
    match: { firstUser: "Do ${codon}." }
    turns:
      - content:
          - tool_use: { name: Write, input: { file_path: ${codon}.txt, content: "bad" } }
      - content: [{ text: "Wrote it." }]
`;

describe('jobMetrics on real executions', () => {
  it('a directory with no execution (yet) has none', () => {
    const dir = temp();
    expect(jobMetrics(dir)).toBeUndefined();
    expect(jobMetrics(join(dir, 'jobs', 'not-started'))).toBeUndefined();
    mkdirSync(join(dir, 'made', '.ribosome'), { recursive: true });
    expect(jobMetrics(join(dir, 'made'))).toBeUndefined();
  });

  it('a passed run: every codon done, the cost and tokens the journal recorded, nothing retried', async () => {
    const { exec, code, stderr } = await ran(
      simplePlan(['one', 'two']),
      codonScript({ one: 'ok', two: 'ok' }),
    );
    expect(code, stderr).toBe(0);
    const metrics = jobMetrics(exec);
    const totals = journalTotals(exec);
    expect(totals.cost).toBeGreaterThan(0);
    expect(totals.output).toBeGreaterThan(0);
    expect(metrics).toEqual({
      codonsDone: 2,
      codonsTotal: 2,
      currentCodon: 'two',
      costUsd: expect.closeTo(totals.cost, 9),
      costEstimated: false,
      inputTokens: expect.any(Number),
      outputTokens: totals.output,
      retries: 0,
      rollbacks: 0,
      sentinelActions: 0,
      gatedCodons: 0,
      gatesFirstTry: 0,
      lastEvent: {
        type: 'server.idle',
        // The newest event a person reads (events after it, a state snapshot, make no line).
        at: (
          JSON.parse(journalRows(exec).findLast((e) => e.type === 'server.idle')?.json ?? '{}') as {
            timestamp: string;
          }
        ).timestamp,
        text: '= all 2 codons of plan "test" are done',
      },
    });
    expect(metrics?.inputTokens).toBeGreaterThan(0);
  });

  it('a job directory made anew (a job run again from scratch): a cache reads the new execution from its start', async () => {
    const dir = temp();
    const exec = join(dir, 'exec');
    const first = writePlanAndScript(dir, simplePlan(['one', 'two']), codonScript({ one: 'ok', two: 'ok' }));
    expect((await runToEnd(first.plan, exec, first.script)).code).toBe(0);
    const cache: MetricsCache = new Map();
    expect(jobMetrics(exec, new Date(), cache)).toMatchObject({ codonsDone: 2, codonsTotal: 2 });
    rmSync(exec, { recursive: true, force: true });
    const again = writePlanAndScript(dir, simplePlan(['solo']), codonScript({ solo: 'ok' }));
    expect((await runToEnd(again.plan, exec, again.script)).code).toBe(0);
    const cached = jobMetrics(exec, new Date(), cache);
    expect(cached).toMatchObject({ codonsDone: 1, codonsTotal: 1, currentCodon: 'solo' });
    expect(cached).toEqual(jobMetrics(exec));
  });

  it('a gate failed then fixed by a feedback round, and an automatic retry: counted as retries, not first-try gates', async () => {
    const plan = `name: test\nagent: builtin\ncodons:\n${GATED('one', '    onVerifyFailure: { feedback: true, maxRounds: 2 }\n')}${GATED('two')}  - id: three
    prompt: Do three.
    onFailure: { retry: { maxAttempts: 2, backoffMs: 10, maxBackoffMs: 10 }, then: idle }
`;
    const script = `tracks:
${FIXED_ON_FEEDBACK('one')}  - name: two
    match: { firstUser: "Do two." }
    turns:
      - content:
          - tool_use: { name: Write, input: { file_path: two.txt, content: "good" } }
      - content: [{ text: "Wrote it." }]
  - name: three
    match: { firstUser: "Do three." }
    turns:
      - error: { status: 500 }
${writeTurns('three.txt', 'ok').replace(/^(?=.)/gm, '    ')}turns: []
`;
    const { exec, code, stderr } = await ran(plan, script, { RIBOSOME_AGENT_MAX_RETRIES: '0' });
    expect(code, stderr).toBe(0);
    const metrics = jobMetrics(exec);
    expect(metrics).toMatchObject({
      codonsDone: 3,
      codonsTotal: 3,
      // One feedback round of `one`, one more start of `three`.
      retries: 2,
      gatedCodons: 2,
      gatesFirstTry: 1,
      rollbacks: 0,
    });
    expect(metrics?.failure).toBeUndefined();
  });

  it("a gate that fails the job: the failure names the codon, its reason's type and the gate", async () => {
    const plan = `name: test\nagent: builtin\ncodons:\n${GATED('one')}  - id: two\n    prompt: Do two.\n`;
    const { exec, code } = await ran(plan, `tracks:\n${FIXED_ON_FEEDBACK('one')}turns: []\n`);
    expect(code).toBe(1);
    const metrics = jobMetrics(exec);
    expect(metrics).toMatchObject({
      codonsDone: 0,
      codonsTotal: 2,
      currentCodon: 'one',
      retries: 0,
      gatedCodons: 1,
      gatesFirstTry: 0,
      failure: { codonId: 'one', reason: 'verify' },
    });
    expect(metrics?.failure?.message).toContain('GATE-SAYS: one.txt must say good');
  });

  it('read while the server runs (a codon running, then stopped), then a rollback: the same with a cache as without', async () => {
    const marker = 50_000 + Math.floor(Math.random() * 5_000);
    const script = `tracks:
  - name: one
    match: { firstUser: "Do one." }
    loop: true
    turns:
${writeTurns('one.txt', 'one').replace(/^(?=.)/gm, '    ')}  - name: two
    match: { firstUser: "Do two." }
    turns:
      - content:
          - tool_use: { name: Bash, input: { command: "sleep ${marker}", timeout: 600000 } }
    loop: true
turns: []
`;
    const { client, exec } = await serve(simplePlan(['one', 'two']), script, ['--no-autostart']);
    const cache: MetricsCache = new Map();
    const oneDone = client.next('server.idle', (e) => e.data.lastEnded?.codonId === 'one', 60_000);
    client.send('codon.next');
    await oneDone;
    // A client hears an event once it is journaled (persist, then announce).
    const toolUse = client.next('assistant.action', (e) => e.data.codonId === 'two', 30_000);
    client.send('codon.next');
    await toolUse;
    await waitFor(() => pidsWith(`sleep ${marker}`).length > 0, 'the sleep to start');
    const running = jobMetrics(exec, new Date(), cache);
    expect(running).toMatchObject({ codonsDone: 1, codonsTotal: 2, currentCodon: 'two', rollbacks: 0 });
    expect(running?.failure).toBeUndefined();
    expect(running?.lastEvent?.text).toMatch(new RegExp(`^Bash sleep ${marker}\\s+… running$`));

    const stopped = client.next('server.idle', (e) => e.data.lastEnded?.codonId === 'two', 20_000);
    client.send('codon.forceStop', { reason: 'enough' });
    await stopped;
    const afterStop = jobMetrics(exec, new Date(), cache);
    expect(afterStop).toMatchObject({
      codonsDone: 1,
      failure: { codonId: 'two', reason: 'stopped', message: 'stopped by a client: enough' },
    });
    expect(afterStop).toEqual(jobMetrics(exec));

    // The server idles after the rollback: nothing more is journaled until a codon starts.
    let rolled = false;
    const idleAgain = client.waitFor(
      (e) => {
        rolled ||= e.type === 'rollback.completed';
        return rolled && e.type === 'server.idle';
      },
      30_000,
      'the server idle after the rollback',
    );
    client.send('rollback.toCodon', { codonId: 'one', checkpointType: 'start' });
    await idleAgain;
    const afterRollback = jobMetrics(exec, new Date(), cache);
    // The latest run began at codon one's start: nothing of it done, nothing failed in its lineage.
    expect(afterRollback).toMatchObject({ codonsDone: 0, codonsTotal: 2, rollbacks: 1 });
    expect(afterRollback?.failure).toBeUndefined();
    // Cost and tokens stay the whole execution's.
    expect(afterRollback?.costUsd).toBe(afterStop?.costUsd);
    expect(afterRollback?.outputTokens).toBe(afterStop?.outputTokens);
    expect(afterRollback).toEqual(jobMetrics(exec));
  });
});
