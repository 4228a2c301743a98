import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RibosomeClient } from '../../src/core/client/index.ts';
import type { ServerEvent } from '../../src/core/protocol/index.ts';
import { e2eResources } from '../helpers/e2e-resources.ts';
import { writePlanAndScript, writeTurns } from '../helpers/plans.ts';
import { waitFor } from '../helpers/processes.ts';
import { startServer, tempDir } from '../helpers/server-process.ts';

const { temps, clients } = e2eResources();

const PLAN = `name: t
codons:
  - id: one
    prompt: a
  - id: two
    prompt: b
    archiveOnSuccess: ["*.log"]
`;
const SCRIPT = `turns:\n${writeTurns('one.txt', 'one')}${writeTurns('two.log', 'log of two')}`;

async function setup() {
  const t = tempDir();
  temps.push(t);
  const exec = join(t.path, 'exec');
  const files = writePlanAndScript(t.path, PLAN, SCRIPT);
  const w = {
    exec,
    files,
    root: join(exec, 'agentRoot'),
    archived: join(exec, 'rigArchive/two/two.log'),
    manifest: () => JSON.parse(readFileSync(join(exec, '.ribosome/archive-manifest.json'), 'utf8')),
  };
  const server = await startServer(files.plan, exec, ['--scripted-provider', files.script]);
  const c = await connect(server.url);
  if (
    !c.handshake.eventHistory.some(
      (e) => e.type === 'server.idle' && e.data.reason === 'all-codons-completed',
    )
  )
    await c.next('server.idle', (e) => e.data.reason === 'all-codons-completed', 60_000);
  expect(existsSync(join(w.root, 'two.log'))).toBe(false);
  expect(readFileSync(w.archived, 'utf8')).toBe('log of two');
  return { w, server, c };
}
async function connect(url: string) {
  const c = await RibosomeClient.connect(url, { mode: 'readandwrite', sendPreviousEvents: true });
  clients.push(c);
  return c;
}
function collect(client: RibosomeClient): ServerEvent[] {
  const events: ServerEvent[] = [];
  client.onEvent((e) => events.push(e));
  return events;
}
const codonsOf = (snap: ServerEvent | undefined): string[] =>
  snap?.type === 'state.snapshot' ? snap.data.completedCodons.map((x) => `${x.codonId}:${x.status}`) : [];

/** The codons as the latest snapshot in the journal has them. */
async function statuses(c: RibosomeClient): Promise<string[]> {
  return codonsOf((await c.syncHistory()).findLast((e) => e.type === 'state.snapshot'));
}

/**
 * The codons as the snapshot sent once the last rollback is over has them: it follows
 * `rollback.completed`, so reading the journal right at that event may find the one before.
 */
async function statusesAfterRollback(events: readonly ServerEvent[]): Promise<string[]> {
  const settled = () => {
    const from = events.findLastIndex((e) => e.type === 'rollback.completed');
    return events.slice(from + 1).find((e) => e.type === 'state.snapshot' && !e.data.isRollingBack);
  };
  await waitFor(() => settled() !== undefined, 'the snapshot after the rollback', 30_000);
  return codonsOf(settled());
}

describe('archived files and rollback', () => {
  it('keeps the archived copy across a rollback before the codon, and a roll-forward finds the files', async () => {
    const { w, c } = await setup();
    const list = await c.request('checkpoint.list', {}, 'checkpoint.list');
    const twoDone = list.data.checkpoints.find(
      (x) => x.codonId === 'two' && x.checkpointType === 'completed',
    );
    expect(twoDone).toBeDefined();
    // The completed checkpoint holds what the archive then moved.
    const shadow = join(w.exec, '.ribosome/checkpoints.git');
    expect(
      execFileSync('git', ['--git-dir', shadow, 'show', `${twoDone?.sha}:two.log`], { encoding: 'utf8' }),
    ).toBe('log of two');

    const events = collect(c);
    let done = c.next('rollback.completed', () => true, 60_000);
    c.send('rollback.toCodon', { codonId: 'two', checkpointType: 'start' });
    await done;
    const restore = events.find((e) => e.type === 'rollback.archiveRestore');
    // two.log did not exist at two's start: it does not come back to the agent root, and says so.
    expect(restore?.type === 'rollback.archiveRestore' && restore.data).toMatchObject({
      codonId: 'two',
      restoredFiles: [],
    });
    expect(existsSync(join(w.root, 'two.log'))).toBe(false);
    expect(readFileSync(join(w.root, 'one.txt'), 'utf8')).toBe('one');
    expect(readFileSync(w.archived, 'utf8')).toBe('log of two');
    expect(w.manifest()).toHaveLength(1);

    done = c.next('rollback.completed', () => true, 60_000);
    c.send('rollback.toCheckpoint', { checkpointSha: twoDone?.sha ?? '' });
    await done;
    expect(await statusesAfterRollback(events)).toEqual(['one:completed', 'two:completed']);
    // As two left it: the log archived, not in the agent root.
    expect(existsSync(join(w.root, 'two.log'))).toBe(false);
    expect(readFileSync(w.archived, 'utf8')).toBe('log of two');
  }, 90_000);

  it('loses no archived file when the server is killed during a rollback', async () => {
    const { w, server, c } = await setup();
    const restoring = c.next('rollback.archiveRestore', () => true, 60_000);
    c.send('rollback.toCodon', { codonId: 'two', checkpointType: 'start' });
    await restoring;
    server.kill('SIGKILL');
    await server.exited;
    expect(readFileSync(w.archived, 'utf8')).toBe('log of two');

    const again = await startServer(w.files.plan, w.exec, [
      '--scripted-provider',
      w.files.script,
      '--no-autostart',
    ]);
    const d = await connect(again.url);
    if (!d.handshake.eventHistory.some((e) => e.type === 'server.idle'))
      await d.next('server.idle', () => true, 60_000);
    expect(readFileSync(w.archived, 'utf8')).toBe('log of two');
    expect(w.manifest()).toHaveLength(1);
    expect(existsSync(join(w.root, 'two.log'))).toBe(false);
    // Wherever recovery left the run, two's log is where that point has it: archived.
    const after = await statuses(d);
    expect(after.slice(0, 1)).toEqual(['one:completed']);
    if (after.includes('two:completed')) expect(existsSync(join(w.root, 'one.txt'))).toBe(true);
  }, 90_000);
});
