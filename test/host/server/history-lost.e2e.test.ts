import { execFileSync } from 'node:child_process';
import { chmodSync, readFileSync, renameSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { deflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { CommandError } from '../../../src/core/client/command-error.ts';
import { RibosomeClient } from '../../../src/core/client/index.ts';
import type { ServerEvent } from '../../../src/core/protocol/index.ts';
import { e2eResources } from '../../helpers/e2e-resources.ts';
import { codonScript, simplePlan, writePlanAndScript, writeTurns } from '../../helpers/plans.ts';
import { pidsWith, waitFor } from '../../helpers/processes.ts';
import { runCli, startServer, tempDir } from '../../helpers/server-process.ts';

// docs/operations.md#faults-full-or-failing-disks: a fatal storage fault exits 4; a refused start exits 2.
const STORAGE_FAILED_EXIT = 4;
const INVALID_INPUT_EXIT = 2;

const { temps, clients } = e2eResources();

function execution() {
  const t = tempDir();
  temps.push(t);
  return { dir: t.path, exec: join(t.path, 'exec') };
}

async function connect(url: string) {
  const client = await RibosomeClient.connect(url, { mode: 'readandwrite', sendPreviousEvents: true });
  clients.push(client);
  return client;
}

/** The first event that matches, whether it came with the handshake's history or after. */
async function seen(client: RibosomeClient, match: (e: ServerEvent) => boolean, what: string) {
  return (
    [...(client.handshake.eventHistory as ServerEvent[]), ...client.received].find(match) ??
    (await client.waitFor(match, 60_000, what))
  );
}

/** A server whose one codon's agent sits in a long Bash command, marked so the test finds it. */
async function waitingServer() {
  const { dir, exec } = execution();
  const marker = 9000 + Math.floor(Math.random() * 900);
  const files = writePlanAndScript(dir, simplePlan(['waits']), codonScript({ waits: { sleep: marker } }));
  const server = await startServer(files.plan, exec, ['--scripted-provider', files.script]);
  const client = await connect(server.url);
  await seen(client, (e) => e.type === 'codon.started', 'codon.started');
  // The agent is in its Bash command: the codon waits.
  await waitFor(() => pidsWith(`sleep ${marker}`).length > 0, 'the agent in its Bash command', 30_000);
  return { server, client, dir, exec, marker, files };
}

async function expectFatalStop(
  w: Awaited<ReturnType<typeof waitingServer>>,
  words: string | string[],
  context: string,
): Promise<void> {
  const fatal = await seen(w.client, (e) => e.type === 'error' && e.data.fatal === true, 'a fatal error');
  expect(fatal.type === 'error' && fatal.data).toMatchObject({
    severity: 'fatal',
    code: 'STORAGE_FAILED',
    context,
  });
  // Any one of them.
  const says = (text: string) => [words].flat().some((w) => text.includes(w));
  const message = fatal.type === 'error' ? fatal.data.message : '';
  expect(says(message), message).toBe(true);
  const exit = await w.server.exited;
  expect(exit.code).toBe(STORAGE_FAILED_EXIT);
  expect(says(w.server.stderr()), w.server.stderr()).toBe(true);
  expect(w.server.stderr()).not.toMatch(/^\s+at /m);
  // The codon's processes ended with the server.
  expect(pidsWith(`sleep ${w.marker}`)).toEqual([]);
}

describe('the history deleted or replaced under a running server', () => {
  it('rm -rf .ribosome: a fatal error naming the database, and exit 4', async () => {
    const w = await waitingServer();
    // Gone at once from the server's view (moved aside, then removed): a recursive rm in place races
    // the server, which writes into the directory meanwhile, its history-lost marker too, and a
    // retried rm then takes the marker away before the restart below can see it.
    const gone = join(w.dir, 'removed-ribosome');
    renameSync(join(w.exec, '.ribosome'), gone);
    rmSync(gone, { recursive: true, force: true, maxRetries: 20, retryDelay: 50 });
    // The check may name either the database or its WAL: both went.
    const db = `${w.exec}/.ribosome/ribosome.db`;
    const named = [
      `the journal database ${db} was deleted`,
      `the journal database's WAL ${db}-wal was deleted`,
    ];
    await expectFatalStop(w, named, 'deleted');
    // A restart refuses what is left, rather than beginning anew over it (trial 29 M5).
    const again = runCli([
      'run',
      w.files.plan,
      '--headless',
      '--execution',
      w.exec,
      '--scripted-provider',
      w.files.script,
    ]);
    expect((await again.exited).code).toBe(INVALID_INPUT_EXIT);
    expect(again.stderr()).toMatch(/its history was deleted or replaced under its last server/);
  }, 120_000);

  it('ribosome.db replaced by an empty file: a fatal error saying so, and exit 4', async () => {
    const w = await waitingServer();
    const db = join(w.exec, '.ribosome/ribosome.db');
    // Atomically, as `mv` would: the server never sees the path empty.
    writeFileSync(`${db}.new`, '');
    renameSync(`${db}.new`, db);
    await expectFatalStop(w, `the journal database ${db} was replaced`, 'replaced');
  }, 120_000);

  it('ribosome.db emptied in place: a fatal error saying so, and exit 4', async () => {
    const w = await waitingServer();
    const db = join(w.exec, '.ribosome/ribosome.db');
    truncateSync(db, 0);
    await expectFatalStop(w, `the journal database ${db} was replaced`, 'replaced');
  }, 120_000);
});

describe('a start on a damaged history', () => {
  it('refuses an execution whose database was emptied, saying why (exit 2)', async () => {
    const { dir, exec } = execution();
    const files = writePlanAndScript(dir, simplePlan(['one']), codonScript({ one: 'ok' }));
    const first = runCli([
      'run',
      files.plan,
      '--headless',
      '--exit-when-done',
      '--execution',
      exec,
      '--scripted-provider',
      files.script,
    ]);
    expect((await first.exited).code).toBe(0);
    truncateSync(join(exec, '.ribosome/ribosome.db'), 0);

    const again = runCli([
      'run',
      files.plan,
      '--headless',
      '--execution',
      exec,
      '--scripted-provider',
      files.script,
    ]);
    expect((await again.exited).code).toBe(INVALID_INPUT_EXIT);
    // Emptied with its WAL left beside it, SQLite reads it as a new database: no record in it.
    expect(again.stderr()).toMatch(
      /the journal database \.ribosome\/ribosome\.db (is empty|holds no record), yet the checkpoint store holds 1 run\(s\)/,
    );
    // Nothing was begun over the remains.
    expect(readFileSync(join(exec, '.ribosome/ribosome.db')).length).toBe(0);
  }, 120_000);
});

describe('a rollback to a poisoned checkpoint', () => {
  it('answers CHECKPOINT_CORRUPT, journals it, and leaves the agent root as it was', async () => {
    const { dir, exec } = execution();
    const track = (id: string, content: string) =>
      `  - name: ${id}\n    match: { firstUser: "Do ${id}." }\n    turns:\n${writeTurns('a.txt', content).replace(/^(?=.)/gm, '    ')}`;
    const script = `tracks:\n${track('one', 'from one')}${track('two', 'from two')}turns: []\n`;
    const files = writePlanAndScript(dir, simplePlan(['one', 'two']), script);
    const server = await startServer(files.plan, exec, ['--scripted-provider', files.script]);
    const client = await connect(server.url);
    await seen(
      client,
      (e) => e.type === 'server.idle' && e.data.reason === 'all-codons-completed',
      'the plan done',
    );
    const root = join(exec, 'agentRoot');
    expect(readFileSync(join(root, 'a.txt'), 'utf8')).toBe('from two');

    // As an agent's shell could: overwrite the object of codon one's a.txt with other content.
    const list = await client.request('checkpoint.list', {}, 'checkpoint.list');
    const one = list.data.checkpoints.find((c) => c.codonId === 'one' && c.checkpointType === 'completed');
    const gitDir = join(exec, '.ribosome/checkpoints.git');
    const blob = execFileSync('git', ['--git-dir', gitDir, 'rev-parse', `${one?.sha}:a.txt`], {
      encoding: 'utf8',
    }).trim();
    const file = join(gitDir, 'objects', blob.slice(0, 2), blob.slice(2));
    chmodSync(file, 0o644);
    writeFileSync(file, deflateSync(Buffer.from('blob 4\0EVIL')));

    const answer = await client
      .request('rollback.toCodon', { codonId: 'one', checkpointType: 'completed' }, 'rollback.completed', {
        timeoutMs: 60_000,
      })
      .then(
        () => 'success',
        (error: unknown) => (error instanceof CommandError ? error.event.data.code : String(error)),
      );
    expect(answer).toBe('CHECKPOINT_CORRUPT');
    expect(readFileSync(join(root, 'a.txt'), 'utf8')).toBe('from two');
    const journaled = (await client.syncHistory()).filter(
      (e) => e.type === 'error' && e.data.code === 'CHECKPOINT_CORRUPT',
    );
    expect(journaled).toHaveLength(1);
    expect(journaled[0]?.type === 'error' && journaled[0].data.message).toContain('a.txt');
  }, 120_000);
});
