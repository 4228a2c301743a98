import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RibosomeClient } from '../../src/core/client/index.ts';
import { e2eResources } from '../helpers/e2e-resources.ts';
import { simplePlan, stuckTurns, writePlanAndScript, writeTurns } from '../helpers/plans.ts';
import { pidsWith, waitFor } from '../helpers/processes.ts';
import { journalRows, startServer, tempDir } from '../helpers/server-process.ts';

const { temps, clients } = e2eResources();

describe('a server killed mid-codon', () => {
  it('is detected on restart: RunCrashed, codon failed, incomplete.codon, agent ended, history whole', async () => {
    const t = tempDir();
    temps.push(t);
    const m = 9000 + Math.floor(Math.random() * 900);
    const files = writePlanAndScript(
      t.path,
      simplePlan(['first', 'stuck']),
      `turns:\n${writeTurns('one.txt', '1')}${stuckTurns(m)}`,
    );
    const exec = join(t.path, 'exec');
    const first = await startServer(files.plan, exec, ['--scripted-provider', files.script]);
    const c1 = await RibosomeClient.connect(first.url, { mode: 'readonly', sendPreviousEvents: true });
    clients.push(c1);
    await waitFor(() => pidsWith(`sleep ${m}`).length > 0, 'the stuck codon to run its command', 30_000);
    const seen = (await c1.syncHistory()).map((e) => e.id);
    first.kill('SIGKILL');
    await first.exited;
    await c1.close();

    const second = await startServer(files.plan, exec, [
      '--scripted-provider',
      files.script,
      '--no-autostart',
    ]);
    const c2 = await RibosomeClient.connect(second.url, { mode: 'readonly', sendPreviousEvents: true });
    clients.push(c2);
    const incomplete =
      c2.received.find((e) => e.type === 'incomplete.codon') ??
      (await c2.next('incomplete.codon', () => true, 5_000));
    expect(incomplete?.type === 'incomplete.codon' && incomplete.data.codonId).toBe('stuck');
    const history = await c2.syncHistory();
    const ids = new Set(history.map((e) => e.id));
    for (const id of seen) expect(ids.has(id)).toBe(true);
    const crashed = history.find(
      (e) => e.type === 'state.transition' && e.data.transitionType === 'RunCrashed',
    );
    expect(crashed?.type === 'state.transition' && crashed.data.transition.data).toMatchObject({
      codonId: 'stuck',
    });
    const recovered = history.find(
      (e) =>
        e.type === 'state.transition' &&
        e.data.transitionType === 'RunStarted' &&
        e.data.transition.data.reason === 'recovery',
    );
    expect(recovered).toBeDefined();
    // The interrupted codon's end is journaled in the run it started in (a history of that run is whole).
    const ofStuck = journalRows(exec).filter(
      (r) => (r.type === 'codon.started' || r.type === 'codon.completed') && r.data.codonId === 'stuck',
    );
    expect(ofStuck.map((r) => r.type)).toEqual(['codon.started', 'codon.completed']);
    expect(ofStuck[1]?.runId).toBe(ofStuck[0]?.runId);
    // The agent the dead server left behind, and its tool process, are gone.
    await waitFor(() => pidsWith(`sleep ${m}`).length === 0, 'the orphaned command to be ended');
    // codon.next retries the interrupted codon.
    const started = c2.next('codon.started');
    const writer = await RibosomeClient.connect(second.url, { mode: 'readandwrite' });
    clients.push(writer);
    writer.send('codon.next');
    expect((await started).data.codonId).toBe('stuck');
  });
});
