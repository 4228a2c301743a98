import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SERVER_VERSION } from '../../../src/core/version.ts';
import { e2eResources } from '../../helpers/e2e-resources.ts';
import { type CodonBehaviour, codonScript, simplePlan } from '../../helpers/plans.ts';
import { journalRows, runToEnd as runPlanToEnd, tempDir } from '../../helpers/server-process.ts';
import { downUrl, startReceiver } from './receiver.ts';

/** Webhooks told about a real run: a server process on the scripted provider, receivers on loopback. */
const { temps } = e2eResources();
const NO_RETRIES = { RIBOSOME_AGENT_MAX_RETRIES: '0' };
const SECRET = 'hook-s3cret-9f2c';
const receivers: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const r of receivers.splice(0)) await r.close();
});

async function receiver(statuses?: number[]) {
  const r = await startReceiver(statuses ? { statuses } : {});
  receivers.push(r);
  return r;
}

/** Runs the plan to its end with --exit-when-done; the notify targets go in the plan and the config file. */
async function runToEnd(options: {
  behaviours: Record<string, CodonBehaviour>;
  planNotify: string;
  configNotify?: string;
}) {
  const t = tempDir();
  temps.push(t);
  const plan = join(t.path, 'plan.yaml');
  writeFileSync(plan, `${simplePlan(Object.keys(options.behaviours))}notify:\n${options.planNotify}`);
  const script = join(t.path, 'script.yaml');
  writeFileSync(script, codonScript(options.behaviours));
  const config = join(t.path, 'config.yaml');
  writeFileSync(config, options.configNotify ? `notify:\n${options.configNotify}` : '{}\n');
  const exec = join(t.path, 'exec');
  const { code, stdout, stderr } = await runPlanToEnd(plan, exec, script, ['--config', config], {
    env: NO_RETRIES,
  });
  const journal = journalRows(exec).map((r) => r.json);
  const log = readFileSync(join(exec, '.ribosome/logs/server.log'), 'utf8');
  return { code, exec, journal, log, stdout, stderr };
}

describe('notifications from a real run', () => {
  it('run-completed reaches the plan and config targets before --exit-when-done exits; a down receiver is a warning, never a failure, and the secret stays out of logs and events', async () => {
    const hook = await receiver();
    const flaky = await receiver([500, 200]);
    const down = await downUrl();
    const run = await runToEnd({
      behaviours: { one: 'ok', two: 'ok' },
      planNotify: `  - webhook: "http://ci:${SECRET}@127.0.0.1:${hook.port}/hook?token=${SECRET}"\n`,
      configNotify: `  - webhook: "${flaky.url}/flaky"\n    on: [run-completed]\n  - webhook: "${down}/down?access_token=${SECRET}"\n    on: [run-completed]\n`,
    });
    expect(run.code, run.stderr).toBe(0);

    expect(hook.received.map((r) => r.body.event)).toEqual(['run-completed']);
    const [completed] = hook.received;
    expect(completed?.url).toBe(`/hook?token=${SECRET}`);
    expect(completed?.body).toMatchObject({
      event: 'run-completed',
      plan: 'test',
      reason: 'all 2 codons of plan "test" are done',
      serverVersion: SERVER_VERSION,
      executionPath: run.exec,
    });
    expect(completed?.body.runId).toMatch(/\S/);
    expect(typeof completed?.body.runCostUsd).toBe('number');
    expect(typeof completed?.body.runDurationMs).toBe('number');
    expect(Number.isNaN(Date.parse(completed?.body.timestamp ?? ''))).toBe(false);

    // 500, then 200 on the retry.
    expect(flaky.received.map((r) => [r.url, r.body.event])).toEqual([
      ['/flaky', 'run-completed'],
      ['/flaky', 'run-completed'],
    ]);

    const warnings = run.journal
      .map(
        (json) =>
          JSON.parse(json) as { type: string; data: { code?: string; severity?: string; message: string } },
      )
      .filter((e) => e.type === 'error' && e.data.code === 'NOTIFY_FAILED');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]?.data.severity).toBe('warning');
    expect(warnings[0]?.data.message).toContain(`notification run-completed to ${down}/down not delivered`);
    expect(run.log).toContain('notification not delivered');
    for (const text of [run.log, run.stdout, run.stderr, ...run.journal]) expect(text).not.toContain(SECRET);
  });

  it('codon-failed, then run-failed, when a codon fails and the run stops going on', async () => {
    const hook = await receiver();
    const run = await runToEnd({
      behaviours: { one: 'ok', two: 500, three: 'ok' },
      planNotify: `  - webhook: "${hook.url}/hook"\n    on: [codon-failed, run-failed, run-completed]\n`,
    });
    expect(run.code).toBe(1);
    expect(hook.received.map((r) => [r.body.event, r.body.codonId])).toEqual([
      ['codon-failed', 'two'],
      ['run-failed', 'two'],
    ]);
    const [codonFailed, runFailed] = hook.received.map((r) => r.body);
    expect(codonFailed?.failureReason).toMatchObject({ type: 'api-error' });
    expect(typeof codonFailed?.codonCostUsd).toBe('number');
    expect(typeof codonFailed?.codonDurationMs).toBe('number');
    expect(runFailed?.reason).toContain('idle; two failed; 1 of 3 codons done');
    expect(runFailed?.runId).toBe(codonFailed?.runId);
  });
});
