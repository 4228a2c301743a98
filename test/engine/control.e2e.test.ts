import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { e2eResources } from '../helpers/e2e-resources.ts';
import { simplePlan, stuckTurns, writeTurns } from '../helpers/plans.ts';
import { pidsWith, waitFor } from '../helpers/processes.ts';
import { runCli } from '../helpers/server-process.ts';

const { serve } = e2eResources();

const marker = () => 3000 + Math.floor(Math.random() * 5000);

describe('steering a running codon', () => {
  it('skip ends a codon stuck in a long Bash command, its child process too, and moves on', async () => {
    const m = marker();
    const { client } = await serve(
      simplePlan(['stuck', 'after']),
      `turns:\n${stuckTurns(m)}${writeTurns('after.txt', 'ok')}`,
      ['--no-autostart'],
    );
    client.send('codon.start', { codonId: 'stuck' });
    await waitFor(() => pidsWith(`sleep ${m}`).length > 0, 'the sleep to start');
    const completed = client.next('codon.completed', (e) => e.data.codonId === 'stuck', 20_000);
    const nextStarted = client.next('codon.started', (e) => e.data.codonId === 'after', 20_000);
    client.send('codon.skip');
    const done = await completed;
    expect(done.data.success).toBe(false);
    expect(done.data.exitStatus.type).not.toBe('success');
    await nextStarted;
    expect(pidsWith(`sleep ${m}`)).toEqual([]);
    const transitions = await client.syncHistory();
    expect(
      transitions.some(
        (e) =>
          e.type === 'state.transition' &&
          e.data.codonId === 'stuck' &&
          e.data.transition.data.to === 'skipped',
      ),
    ).toBe(true);
  });

  it('forceStop ends the whole process tree, reports the codon and idles', async () => {
    const m = marker();
    const { client, exec } = await serve(simplePlan(['stuck', 'after']), `turns:\n${stuckTurns(m)}`, [
      '--no-autostart',
    ]);
    client.send('codon.start', { codonId: 'stuck' });
    await waitFor(() => pidsWith(`sleep ${m}`).length > 0, 'the sleep to start');
    const completed = client.next('codon.completed', () => true, 20_000);
    const error = client.next('error', (e) => e.data.severity === 'codon', 20_000);
    const idle = client.next('server.idle', () => true, 20_000);
    client.send('codon.forceStop', { reason: 'stuck in sleep' });
    expect((await completed).data).toMatchObject({
      codonId: 'stuck',
      success: false,
      // Never retried, so not retriable: a client meant it.
      failureReason: { type: 'unknown', retriable: false, message: 'stopped by a client: stuck in sleep' },
    });
    expect((await error).data).toMatchObject({ codon: 'stuck', severity: 'codon' });
    expect((await idle).data.reason).toBe('codon-completed');
    expect(pidsWith(`sleep ${m}`)).toEqual([]);
    // The console view says stopped, as the idle line does, not FAILED.
    const log = runCli(['log', '--execution', exec]);
    expect((await log.exited).code, log.stderr()).toBe(0);
    expect(log.stdout()).toMatch(
      /^< stuck STOPPED \([\d.]+s, \$[\d.]+\): stopped by a client: stuck in sleep$/m,
    );
  });

  it('classifies a 429 as rate-limit and a 500 as api-error, and redo retries the codon', async () => {
    const script = `turns:
  - error: { status: 429, retryAfter: 0 }
  - error: { status: 500 }
${writeTurns('ok.txt', 'fine')}`;
    const { client, exec } = await serve(simplePlan(['flaky']), script, ['--no-autostart'], {
      RIBOSOME_AGENT_MAX_RETRIES: '0',
    });
    const first = client.next('codon.completed', () => true, 30_000);
    client.send('codon.start', { codonId: 'flaky' });
    expect((await first).data.failureReason).toMatchObject({ type: 'rate-limit', retriable: true });
    const second = client.next('codon.completed', () => true, 30_000);
    client.send('codon.redo');
    expect((await second).data.failureReason).toMatchObject({ type: 'api-error', retriable: true });
    const third = client.next('codon.completed', () => true, 30_000);
    client.send('codon.redo');
    expect((await third).data).toMatchObject({ success: true });
    expect(existsSync(join(exec, 'agentRoot/ok.txt'))).toBe(true);
  });

  it('server.shutdown while a codon runs reports the codon, ends its agent tree and exits 0', async () => {
    const m = marker();
    const { server, client } = await serve(simplePlan(['stuck']), `turns:\n${stuckTurns(m)}`, [
      '--no-autostart',
    ]);
    client.send('codon.start', { codonId: 'stuck' });
    await waitFor(() => pidsWith(`sleep ${m}`).length > 0, 'the sleep to start');
    const completed = client.next('codon.completed', () => true, 20_000);
    client.send('server.shutdown', { reason: 'end of day' });
    expect((await completed).data).toMatchObject({ codonId: 'stuck', success: false });
    expect((await server.exited).code).toBe(0);
    expect(pidsWith(`sleep ${m}`)).toEqual([]);
  });

  it('fails a codon that runs past its timeout with failureReason timeout', async () => {
    const m = marker();
    const plan = simplePlan(['slow'], '    timeoutMs: 1500\n');
    const { client } = await serve(plan, `turns:\n${stuckTurns(m)}`, ['--no-autostart']);
    const completed = client.next('codon.completed', () => true, 30_000);
    client.send('codon.start', { codonId: 'slow' });
    expect((await completed).data.failureReason).toMatchObject({ type: 'timeout', retriable: false });
    expect(pidsWith(`sleep ${m}`)).toEqual([]);
  });
});
