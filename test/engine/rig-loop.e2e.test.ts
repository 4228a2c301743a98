import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { e2eResources } from '../helpers/e2e-resources.ts';
import { writeTurns } from '../helpers/plans.ts';

const { serve } = e2eResources();

describe('loops and rig setup reuse', () => {
  it('runs a loop block as runtime codons <id>#<iteration>, in order', async () => {
    const plan = `name: t
codons:
  - id: draft
    prompt: Draft it.
  - loop:
      id: refine
      iterations: 2
      codons:
        - id: polish
          prompt: Polish it.
        - id: check
          prompt: Check it.
`;
    const script = `turns:\n${['d', 'p0', 'c0', 'p1', 'c1'].map((n) => writeTurns(`${n}.txt`, n)).join('')}`;
    const { client, root } = await serve(plan, script);
    if (
      !client.handshake.eventHistory.some(
        (e) => e.type === 'server.idle' && e.data.reason === 'all-codons-completed',
      )
    ) {
      await client.next('server.idle', (e) => e.data.reason === 'all-codons-completed', 60_000);
    }
    const started = (await client.syncHistory()).flatMap((e) =>
      e.type === 'codon.started' ? [e.data.codonId] : [],
    );
    expect(started).toEqual(['draft', 'polish#0', 'check#0', 'polish#1', 'check#1']);
    expect(readFileSync(join(root, 'c1.txt'), 'utf8')).toBe('c1');
    expect(client.serverInfo.plan?.codons.map((c) => c.codonId)).toEqual(started);
  });

  it('reuses a codon rig-setup checkpoint when it runs again, and skipPreCommands skips rig setup', async () => {
    const plan = `name: t
codons:
  - id: build
    prompt: Build.
    rigSetup:
      - run: "echo setup >> rig.log"
`;
    const script = `turns:\n${writeTurns('out.txt', 'one')}${writeTurns('out.txt', 'two')}${writeTurns('out.txt', 'three')}`;
    const { client, root } = await serve(plan, script, ['--no-autostart']);
    const run = async (send: () => void) => {
      const done = client.next('codon.completed', () => true, 30_000);
      send();
      return done;
    };
    await run(() => client.send('codon.start', { codonId: 'build' }));
    expect(readFileSync(join(root, 'rig.log'), 'utf8')).toBe('setup\n');
    const reused = client.next(
      'info',
      (e) => e.data.message.includes('reusing its rig-setup checkpoint'),
      30_000,
    );
    await run(() => client.send('codon.redo'));
    await reused;
    // The step did not run again: the tree was restored to the rig-setup checkpoint instead.
    expect(readFileSync(join(root, 'rig.log'), 'utf8')).toBe('setup\n');
    expect(readFileSync(join(root, 'out.txt'), 'utf8')).toBe('two');
    const skipped = client.next('info', (e) => e.data.message.includes('skipPreCommands'), 30_000);
    await run(() => client.send('codon.start', { codonId: 'build', skipPreCommands: true }));
    await skipped;
    const list = await client.request('checkpoint.list', {}, 'checkpoint.list');
    expect(list.data.checkpoints.map((c) => c.checkpointType)).toEqual([
      'rig-setup',
      'completed',
      'completed',
      'completed',
    ]);
  });

  it("gives rig setup commands the codon's env (defaults.env with the codon's over it)", async () => {
    const plan = `name: t
defaults:
  env:
    FROM_DEFAULTS: plan-wide
    OVERRIDDEN: by-defaults
codons:
  - id: build
    prompt: Build.
    env:
      OVERRIDDEN: by-codon
    rigSetup:
      - run: 'echo "$FROM_DEFAULTS $OVERRIDDEN" > rig-env.txt'
`;
    const { client, root } = await serve(plan, `turns:\n${writeTurns('out.txt', 'one')}`);
    if (!client.handshake.eventHistory.some((e) => e.type === 'codon.completed'))
      await client.next('codon.completed', () => true, 30_000);
    expect(readFileSync(join(root, 'rig-env.txt'), 'utf8')).toBe('plan-wide by-codon\n');
  });
});
