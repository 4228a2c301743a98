import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RibosomeClient } from '../../src/core/client/index.ts';
import type { ServerEvent } from '../../src/core/protocol/index.ts';
import { e2eResources } from '../helpers/e2e-resources.ts';
import { simplePlan, stuckTurns, writeTurns } from '../helpers/plans.ts';

const { serve } = e2eResources();

async function runAll(client: RibosomeClient): Promise<void> {
  if (
    client.handshake.eventHistory.some(
      (e) => e.type === 'server.idle' && e.data.reason === 'all-codons-completed',
    )
  )
    return;
  await client.next('server.idle', (e) => e.data.reason === 'all-codons-completed', 60_000);
}

/** Sends a rollback and collects its events up to rollback.completed (or the error that answers it). */
async function rollback(client: RibosomeClient, send: () => string): Promise<ServerEvent[]> {
  const events: ServerEvent[] = [];
  const off = client.onEvent((e) => {
    if (e.type.startsWith('rollback.')) events.push(e);
  });
  let id = '';
  const done = client.waitFor(
    (e) => e.type === 'rollback.completed' || (e.type === 'error' && e.data.commandId === id),
    60_000,
    'rollback',
  );
  id = send();
  const last = await done;
  off();
  if (last.type === 'error') throw Object.assign(new Error(last.data.message), { code: last.data.code });
  return events;
}

const THREE = `turns:\n${writeTurns('a.txt', 'A')}  - content:\n      - tool_use: { name: Bash, input: { command: "mkdir -p made && echo by-bash > made/b.txt" } }\n  - content: [{ text: Made b. }]\n${writeTurns('c.txt', 'C')}`;

describe('checkpoints and rollback', () => {
  it('lists checkpoints, rolls back to a codon start in a new run, and keeps the old run listable', async () => {
    const { client, root } = await serve(simplePlan(['one', 'two', 'three']), THREE);
    await runAll(client);
    const list = await client.request('checkpoint.list', {}, 'checkpoint.list');
    expect(list.data.checkpoints.map((c) => `${c.codonId}:${c.checkpointType}:${c.status}`)).toEqual([
      'one:completed:completed',
      'two:completed:completed',
      'three:completed:completed',
    ]);
    expect(list.data.currentBranch).toBe(`run/${list.data.runId}`);
    expect(list.data.checkpoints.every((c) => /^[0-9a-f]{40}$/.test(c.sha))).toBe(true);
    expect(readFileSync(join(root, 'made/b.txt'), 'utf8')).toBe('by-bash\n');

    const events = await rollback(client, () =>
      client.send('rollback.toCodon', { codonId: 'two', checkpointType: 'start' }),
    );
    const order = events.map((e) => e.type);
    expect(order[0]).toBe('rollback.started');
    expect(order.at(-1)).toBe('rollback.completed');
    expect(order.filter((t) => t === 'rollback.codonCheckpoint')).toHaveLength(2);
    expect(order.indexOf('rollback.progress')).toBeGreaterThan(0);
    const started = events[0];
    expect(started?.type === 'rollback.started' && started.data).toMatchObject({
      fromRun: list.data.runId,
      toCodon: 'one',
      checkpointType: 'completed',
      codonsToProcess: ['two', 'three'],
    });
    const completed = events.at(-1);
    expect(completed?.type === 'rollback.completed' && completed.data.fromRun).toBe(list.data.runId);
    const toRun = completed?.type === 'rollback.completed' ? completed.data.toRun : '';
    expect(toRun).not.toBe(list.data.runId);
    // The work tree is codon one's: the Bash-made file and c.txt are gone.
    expect(readFileSync(join(root, 'a.txt'), 'utf8')).toBe('A');
    expect(existsSync(join(root, 'made'))).toBe(false);
    expect(existsSync(join(root, 'c.txt'))).toBe(false);
    // New run, new branch; the old run's checkpoints stay listable and reachable.
    const now = await client.request('checkpoint.list', {}, 'checkpoint.list');
    expect(now.data.runId).toBe(toRun);
    expect(now.data.currentBranch).toBe(`run/${toRun}`);
    expect(now.data.checkpoints.map((c) => c.codonId)).toEqual(['one']);
    const old = await client.request('checkpoint.list', { runId: list.data.runId }, 'checkpoint.list');
    expect(old.data.checkpoints).toHaveLength(3);
    // Rolling forward again to the old run's last checkpoint by abbreviated SHA brings everything back.
    const last = list.data.checkpoints[2]!.sha;
    await rollback(client, () => client.send('rollback.toCheckpoint', { checkpointSha: last.slice(0, 10) }));
    expect(readFileSync(join(root, 'made/b.txt'), 'utf8')).toBe('by-bash\n');
    expect(readFileSync(join(root, 'c.txt'), 'utf8')).toBe('C');
  });

  it('answers unknown SHAs, unknown codons, missing types and no success with clear errors', async () => {
    const { client } = await serve(simplePlan(['one', 'two']), `turns:\n${writeTurns('a.txt', 'A')}`, [
      '--no-autostart',
    ]);
    await expect(rollback(client, () => client.send('rollback.toLastSuccess', {}))).rejects.toMatchObject({
      code: 'NO_SUCCESSFUL_CODON',
    });
    await expect(
      rollback(client, () => client.send('rollback.toCheckpoint', { checkpointSha: 'deadbeef' })),
    ).rejects.toMatchObject({
      code: 'CHECKPOINT_NOT_FOUND',
    });
    await expect(
      rollback(client, () => client.send('rollback.toCodon', { codonId: 'nope', checkpointType: 'end' })),
    ).rejects.toMatchObject({
      code: 'UNKNOWN_CODON',
      // Like codon.start's: what the plan has instead (a trial missed it).
      message: expect.stringMatching(/^no codon "nope" in plan ".*"; its codons: one, /),
    });
    const done = client.next('codon.completed', () => true, 30_000);
    client.send('codon.start', { codonId: 'one' });
    await done;
    await expect(
      rollback(client, () => client.send('rollback.toCodon', { codonId: 'one', checkpointType: 'skipped' })),
    ).rejects.toMatchObject({ code: 'CHECKPOINT_NOT_FOUND', message: expect.stringMatching(/completed/) });
    await expect(
      rollback(client, () => client.send('rollback.toCodon', { codonId: 'two', checkpointType: 'end' })),
    ).rejects.toMatchObject({ code: 'CHECKPOINT_NOT_FOUND' });
  });

  it('resolves every type and alias: end, completed, skipped, error, start of the first codon', async () => {
    const m = 4000 + Math.floor(Math.random() * 4000);
    const script = `turns:\n${writeTurns('a.txt', 'A')}${stuckTurns(m)}  - error: { status: 500 }\n`;
    // The agent gives up on the first 500 (the server's agents inherit this).
    const { client, root } = await serve(simplePlan(['one', 'two', 'three']), script, ['--no-autostart'], {
      RIBOSOME_AGENT_MAX_RETRIES: '0',
    });
    const next = async (send: () => void) => {
      const done = client.next('codon.completed', () => true, 30_000);
      send();
      return done;
    };
    await next(() => client.send('codon.next'));
    const skipped = client.next('codon.completed', () => true, 30_000);
    client.send('codon.next');
    await client.next('assistant.action', (e) => e.data.action === 'tool_use', 30_000);
    client.send('codon.skip');
    await skipped;
    const failed = await next(() => client.send('codon.start', { codonId: 'three' }));
    expect(failed.data.success).toBe(false);
    const list = await client.request('checkpoint.list', {}, 'checkpoint.list');
    const types = list.data.checkpoints.map((c) => `${c.codonId}:${c.checkpointType}`);
    expect(types).toEqual(['one:completed', 'two:skipped', 'three:error']);
    const sha = (id: string) => list.data.checkpoints.find((c) => c.codonId === id)!.sha;
    // Each rollback starts a new run whose history ends at its target, so go from the newest back.
    const cases: Array<[string, 'end' | 'completed' | 'skipped' | 'error' | 'start', string]> = [
      ['three', 'error', sha('three')],
      ['three', 'end', sha('three')],
      ['two', 'skipped', sha('two')],
      ['two', 'end', sha('two')],
      ['one', 'completed', sha('one')],
    ];
    for (const [codonId, checkpointType, expected] of cases) {
      const events = await rollback(client, () =>
        client.send('rollback.toCodon', { codonId, checkpointType }),
      );
      const done = events.at(-1);
      expect(
        done?.type === 'rollback.completed' && done.data.checkpoint,
        `${codonId} ${checkpointType}`,
      ).toBe(expected);
    }
    const first = await rollback(client, () =>
      client.send('rollback.toCodon', { codonId: 'one', checkpointType: 'start' }),
    );
    const done = first.at(-1);
    expect(done?.type === 'rollback.completed' && done.data.checkpointType).toBe('initial');
    // A run's initial checkpoint belongs to no codon: the events name the codon whose start it is.
    expect(done?.type === 'rollback.completed' && done.data).toMatchObject({
      codonId: 'one',
      codonName: 'Codon one',
    });
    const began = first.find((e) => e.type === 'rollback.started');
    expect(began?.type === 'rollback.started' && began.data.toCodon).toBe('one');
    expect(began?.type === 'rollback.started' && began.data.fromCodon).not.toBe('');
    expect(existsSync(join(root, 'a.txt'))).toBe(false);
  });

  it('refuses to roll back while a codon runs, naming codon.forceStop; autoRestart starts the next codon', async () => {
    const m = 4000 + Math.floor(Math.random() * 4000);
    const { client } = await serve(
      simplePlan(['one', 'two']),
      `turns:\n${writeTurns('a.txt', 'A')}${stuckTurns(m)}${writeTurns('b.txt', 'B')}`,
      ['--no-autostart'],
    );
    let done = client.next('codon.completed', () => true, 30_000);
    client.send('codon.next');
    await done;
    const running = client.next('assistant.action', (e) => e.data.action === 'tool_use', 30_000);
    client.send('codon.next');
    await running;
    await expect(rollback(client, () => client.send('rollback.toLastSuccess', {}))).rejects.toMatchObject({
      code: 'CODON_RUNNING',
      message: expect.stringMatching(/codon\.forceStop/),
    });
    done = client.next('codon.completed', () => true, 30_000);
    client.send('codon.forceStop', { reason: 'test' });
    await done;
    const restarted = client.next('codon.started', () => true, 30_000);
    const events = await rollback(client, () => client.send('rollback.toLastSuccess', { autoRestart: true }));
    const completed = events.at(-1);
    expect(completed?.type === 'rollback.completed' && completed.data).toMatchObject({
      codonId: 'one',
      autoRestart: true,
    });
    expect((await restarted).data.codonId).toBe('two');
  });
});
