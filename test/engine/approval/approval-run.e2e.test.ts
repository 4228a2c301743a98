import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { RibosomeClient } from '../../../src/core/client/index.ts';
import { e2eResources } from '../../helpers/e2e-resources.ts';
import { writePlanAndScript, writeTurns } from '../../helpers/plans.ts';
import { waitFor } from '../../helpers/processes.ts';
import { journalRows, runToEnd, startServer, tempDir } from '../../helpers/server-process.ts';
import { startReceiver } from '../../host/notify/receiver.ts';

/**
 * `ribosome run` and approval gates (docs/review.md#approval-gates): --approve-all runs through every
 * gate (the journal still shows each), a headless --exit-when-done run keeps waiting until a client
 * approves, saying the wait on stderr, and the approval-needed webhook calls a person.
 */

const { temps, clients } = e2eResources();
const receivers: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const r of receivers.splice(0)) await r.close();
});

const plan = (notify = '') =>
  `name: gates\nagent: builtin\ncodons:\n  - id: one\n    name: Design\n    prompt: Do one.\n    approval: required\n  - id: two\n    prompt: Do two.\n${notify}`;
const track = (id: string) =>
  `  - name: ${id}\n    match: { firstUser: "Do ${id}." }\n    turns:\n${writeTurns(`${id}.txt`, 'ok').replace(/^(?=.)/gm, '    ')}`;
const SCRIPT = `tracks:\n${track('one')}${track('two')}turns: []\n`;

function files(planText: string) {
  const t = tempDir();
  temps.push(t);
  return { ...writePlanAndScript(t.path, planText, SCRIPT), exec: join(t.path, 'exec') };
}

describe('ribosome run and approval gates', { timeout: 120_000 }, () => {
  it('--exit-when-done --approve-all runs to the end; the journal shows the gate, approved auto; approval-needed calls nobody', async () => {
    const hook = await startReceiver();
    receivers.push(hook);
    const f = files(
      plan(`notify:\n  - webhook: "${hook.url}/gate"\n    on: [approval-needed, run-completed]\n`),
    );
    const run = await runToEnd(f.plan, f.exec, f.script, ['--approve-all']);
    expect(run.code, run.stderr).toBe(0);
    const turns = journalRows(f.exec)
      .filter((r) => r.type.startsWith('approval.') || r.type === 'codon.started')
      .map((r) => [r.type, r.data.codonId, r.data.how]);
    expect(turns).toEqual([
      ['codon.started', 'one', undefined],
      ['approval.waiting', 'one', undefined],
      ['approval.ended', 'one', 'auto'],
      ['codon.started', 'two', undefined],
    ]);
    // Nobody waits, so nobody is called: the run's end is the only notice.
    const received = await hook.waitFor(1);
    expect(received.map((r) => [r.url, r.body.event])).toEqual([['/gate', 'run-completed']]);
  });

  it('headless --exit-when-done keeps waiting, says so on stderr, and exits 0 once approved and done', async () => {
    const f = files(plan());
    const server = await startServer(f.plan, f.exec, ['--scripted-provider', f.script, '--exit-when-done']);
    const client = await RibosomeClient.connect(server.url, {
      mode: 'readandwrite',
      sendPreviousEvents: true,
    });
    clients.push(client);
    await client.next('server.idle', (e) => e.data.heldBy === 'approval', 60_000);
    await client.request('approval.approve', { codonId: 'one' }, 'approval.ended');
    const exit = await server.exited;
    expect(exit.code, server.stderr()).toBe(0);
    const lines = server.stderr().split('\n');
    expect(lines).toContain('ribosome: waiting for approval of codon one (Design)');
    expect(lines.some((l) => /^ribosome: codon one approved by client-\S+: the run goes on$/.test(l))).toBe(
      true,
    );
    expect(journalRows(f.exec).filter((r) => r.type === 'codon.started')).toHaveLength(2);
  });

  it('headless, started again during a wait: the resume line says the wait, and stderr says it as a first start does', async () => {
    const f = files(plan());
    const args = ['--scripted-provider', f.script, '--exit-when-done'];
    const first = await startServer(f.plan, f.exec, args);
    const watcher = await RibosomeClient.connect(first.url, { mode: 'readonly', sendPreviousEvents: true });
    clients.push(watcher);
    await watcher.next('server.idle', (e) => e.data.heldBy === 'approval', 60_000);
    first.kill('SIGKILL');
    await first.exited;

    const second = await startServer(f.plan, f.exec, args);
    const client = await RibosomeClient.connect(second.url, {
      mode: 'readandwrite',
      sendPreviousEvents: true,
    });
    clients.push(client);
    const said = 'ribosome: waiting for approval of codon one (Design)';
    await waitFor(() => second.stderr().split('\n').includes(said), 'the wait on stderr');
    await client.request('approval.approve', { codonId: 'one' }, 'approval.ended');
    const exit = await second.exited;
    expect(exit.code, second.stderr()).toBe(0);
    const lines = second.stderr().split('\n');
    const resumed = lines.find((l) => l.startsWith('ribosome: resuming'));
    expect(resumed).toContain('1 of 2 codons done, codon one waits for approval');
    expect(resumed).not.toContain('next: two');
    expect(lines.filter((l) => l === said)).toHaveLength(1);
  });
});
