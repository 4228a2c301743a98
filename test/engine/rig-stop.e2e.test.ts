import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { RibosomeClient } from '../../src/core/client/index.ts';
import { e2eResources } from '../helpers/e2e-resources.ts';
import { codonScript } from '../helpers/plans.ts';
import { killUntilNone, pidsWith, waitFor } from '../helpers/processes.ts';
import { startServer, tempDir } from '../helpers/server-process.ts';

/** A rig setup command is the codon's as much as its agent is: skip, stop, shutdown and crashes end it. */
const { temps, clients } = e2eResources();

function workspace(marker: number) {
  const t = tempDir();
  temps.push(t);
  const plan = join(t.path, 'plan.yaml');
  writeFileSync(
    plan,
    `name: test
agent: builtin
codons:
  - id: one
    prompt: Do one.
    rigSetup:
      - run: "(setsid sleep ${marker + 1} &); sleep ${marker}; echo late > late.txt"
  - id: two
    prompt: Do two.
`,
  );
  const script = join(t.path, 'script.yaml');
  writeFileSync(script, codonScript({ one: 'ok', two: 'ok' }));
  return { plan, script, exec: join(t.path, 'exec') };
}

async function inRigSetup(marker: number) {
  const w = workspace(marker);
  const server = await startServer(w.plan, w.exec, ['--scripted-provider', w.script]);
  const client = await RibosomeClient.connect(server.url, { mode: 'readandwrite', sendPreviousEvents: true });
  clients.push(client);
  await waitFor(() => pidsWith(`sleep ${marker}`).length > 0, 'the rig command to run', 30_000);
  return { ...w, server, client };
}

const markers: number[] = [];
const marker = () => {
  const m = 20_000 + Math.floor(Math.random() * 5000);
  markers.push(m);
  return m;
};

// A test that failed (a server that never ended the rig command) must not leave it running: the
// command and its detached child carry the marker in their command line.
afterEach(async () => {
  for (const m of markers.splice(0)) {
    await killUntilNone(() => pidsWith(`sleep ${m}`).map((pid) => ({ pid })));
    await killUntilNone(() => pidsWith(`sleep ${m + 1}`).map((pid) => ({ pid })));
  }
});

describe('a codon in rig setup', () => {
  it('codon.skip ends the rig command at once, the codon is skipped and the next one runs', async () => {
    const m = marker();
    const { client, exec } = await inRigSetup(m);
    const completed = client.next('codon.completed', (e) => e.data.codonId === 'one', 20_000);
    const next = client.next('codon.started', (e) => e.data.codonId === 'two', 20_000);
    // A second stop of the same codon is refused, not taken twice.
    const refused = client.next('error', (e) => e.data.code === 'CODON_STOPPING', 10_000);
    client.send('codon.skip');
    client.send('codon.skip');
    await refused;
    expect((await completed).data).toMatchObject({
      success: false,
      failureReason: { message: expect.stringContaining('skipped') },
    });
    await next;
    expect(pidsWith(`sleep ${m}`)).toEqual([]);
    await waitFor(() => pidsWith(`sleep ${m + 1}`).length === 0, 'the detached child to be ended', 5_000);
    expect(existsSync(join(exec, 'agentRoot/late.txt'))).toBe(false);
  });

  it('codon.forceStop ends it with the reason given; the server idles', async () => {
    const m = marker();
    const { client } = await inRigSetup(m);
    const completed = client.next('codon.completed', () => true, 20_000);
    const idle = client.next('server.idle', () => true, 20_000);
    client.send('codon.forceStop', { reason: 'wrong branch' });
    expect((await completed).data.failureReason?.message).toContain('stopped by a client: wrong branch');
    expect((await idle).data).toMatchObject({
      nextCodonId: 'one',
      lastEnded: { codonId: 'one', status: 'stopped' },
    });
    expect(pidsWith(`sleep ${m}`)).toEqual([]);
  });

  it('server.shutdown ends it and the server exits 0', async () => {
    const m = marker();
    const { client, server } = await inRigSetup(m);
    client.send('server.shutdown', { reason: 'going home' });
    expect((await server.exited).code).toBe(0);
    expect(pidsWith(`sleep ${m}`)).toEqual([]);
  });

  it('a SIGKILLed server leaves it running; the restarted server ends it before anything else', async () => {
    const m = marker();
    const { server, plan, script, exec } = await inRigSetup(m);
    server.kill('SIGKILL');
    await server.exited;
    expect(pidsWith(`sleep ${m}`).length).toBeGreaterThan(0);
    const second = await startServer(plan, exec, ['--no-autostart', '--scripted-provider', script]);
    const c = await RibosomeClient.connect(second.url, { mode: 'readonly' });
    clients.push(c);
    await waitFor(() => pidsWith(`sleep ${m}`).length === 0, 'the left rig command to be ended', 30_000);
    // Its detached child (setsid) too: it carries the step's mark in its environment.
    expect(pidsWith(`sleep ${m + 1}`)).toEqual([]);
    expect(existsSync(join(exec, 'agentRoot/late.txt'))).toBe(false);
  });
});
