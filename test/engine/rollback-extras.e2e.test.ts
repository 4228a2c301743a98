import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RibosomeClient } from '../../src/core/client/index.ts';
import type { ServerEvent } from '../../src/core/protocol/index.ts';
import { e2eResources } from '../helpers/e2e-resources.ts';
import { stuckTurns, writePlanAndScript, writeTurns } from '../helpers/plans.ts';
import { pidsWith, waitFor } from '../helpers/processes.ts';
import { startServer, tempDir } from '../helpers/server-process.ts';

const { temps, clients } = e2eResources();

function workspace() {
  const t = tempDir();
  temps.push(t);
  return { dir: t.path, exec: join(t.path, 'exec'), root: join(t.path, 'exec/agentRoot') };
}
async function connect(url: string, mode: 'readonly' | 'readandwrite' = 'readandwrite') {
  const c = await RibosomeClient.connect(url, { mode, sendPreviousEvents: true });
  clients.push(c);
  return c;
}
async function finished(client: RibosomeClient) {
  if (
    client.handshake.eventHistory.some(
      (e) => e.type === 'server.idle' && e.data.reason === 'all-codons-completed',
    )
  )
    return;
  await client.next('server.idle', (e) => e.data.reason === 'all-codons-completed', 60_000);
}
function collect(client: RibosomeClient, prefix: string): ServerEvent[] {
  const events: ServerEvent[] = [];
  client.onEvent((e) => {
    if (e.type.startsWith(prefix)) events.push(e);
  });
  return events;
}

/** Every file under `dir` with its bytes, for byte-identical comparisons. */
function snapshotTree(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else out[p.slice(dir.length)] = readFileSync(p).toString('base64');
    }
  };
  walk(dir);
  return out;
}

describe('rollback around users, rigs and archives', () => {
  it("leaves a user's own git repository in the agent root byte-identical", async () => {
    const w = workspace();
    mkdirSync(w.root, { recursive: true });
    const git = (...args: string[]) =>
      execFileSync('git', ['-c', 'user.name=u', '-c', 'user.email=u@x', ...args], {
        cwd: w.root,
        stdio: 'pipe',
      });
    git('init', '-q', '-b', 'main');
    writeFileSync(join(w.root, 'mine.txt'), 'user file');
    git('add', '.');
    git('commit', '-qm', 'user commit');
    const before = snapshotTree(join(w.root, '.git'));
    const plan = 'name: t\ncodons:\n  - id: one\n    prompt: a\n  - id: two\n    prompt: b\n';
    const files = writePlanAndScript(
      w.dir,
      plan,
      `turns:\n${writeTurns('a.txt', 'A')}${writeTurns('b.txt', 'B')}`,
    );
    const server = await startServer(files.plan, w.exec, ['--scripted-provider', files.script]);
    const c = await connect(server.url);
    await finished(c);
    const done = c.next('rollback.completed', () => true, 60_000);
    c.send('rollback.toCodon', { codonId: 'one', checkpointType: 'start' });
    await done;
    expect(existsSync(join(w.root, 'a.txt'))).toBe(false);
    expect(readFileSync(join(w.root, 'mine.txt'), 'utf8')).toBe('user file');
    expect(snapshotTree(join(w.root, '.git'))).toEqual(before);
    // Our checkpoints never hold the user's .git.
    const shadow = join(w.exec, '.ribosome/checkpoints.git');
    const tracked = execFileSync('git', ['--git-dir', shadow, 'log', '--all', '--name-only', '--format='], {
      encoding: 'utf8',
    });
    expect(tracked).toContain('mine.txt');
    expect(tracked).not.toMatch(/(^|\/)\.git\//m);
  });

  it('removes directories rig setup made (even ignored ones) and brings archived files back', async () => {
    const w = workspace();
    mkdirSync(join(w.dir, 'assets'), { recursive: true });
    writeFileSync(join(w.dir, 'assets/style.md'), 'style');
    const plan = `name: t
codons:
  - id: one
    prompt: a
  - id: two
    prompt: b
    rigSetup:
      - copy: { from: assets, to: docs }
      - run: "printf 'cache/\\n' > .gitignore && mkdir -p cache && echo cached > cache/big.bin"
    archiveOnSuccess: ["*.log"]
`;
    const script = `turns:\n${writeTurns('notes.log', 'log from one')}${writeTurns('b.txt', 'B')}`;
    const files = writePlanAndScript(w.dir, plan, script);
    const server = await startServer(files.plan, w.exec, ['--scripted-provider', files.script]);
    const c = await connect(server.url);
    const archive = collect(c, 'archive.');
    await finished(c);
    const history = await c.syncHistory();
    const archived = history.find((e) => e.type === 'archive.completed') ?? archive[0];
    expect(archived?.type === 'archive.completed' && archived.data).toMatchObject({
      codonId: 'two',
      archivedFiles: ['notes.log'],
    });
    expect(existsSync(join(w.root, 'notes.log'))).toBe(false);
    expect(readFileSync(join(w.exec, 'rigArchive/two/notes.log'), 'utf8')).toBe('log from one');
    expect(readFileSync(join(w.root, 'docs/style.md'), 'utf8')).toBe('style');
    expect(existsSync(join(w.root, 'cache/big.bin'))).toBe(true);
    const infos = history.flatMap((e) => (e.type === 'info' ? [e.data.message] : []));
    expect(infos.some((m) => m.includes('rig setup step 2/2'))).toBe(true);
    const list = await c.request('checkpoint.list', {}, 'checkpoint.list');
    expect(list.data.checkpoints.map((x) => `${x.codonId}:${x.checkpointType}`)).toEqual([
      'one:completed',
      'two:rig-setup',
      'two:completed',
    ]);

    const events = collect(c, 'rollback.');
    const done = c.next('rollback.completed', () => true, 60_000);
    c.send('rollback.toCodon', { codonId: 'one', checkpointType: 'end' });
    await done;
    const order = events.map((e) =>
      e.type === 'rollback.rigCleanup' ? `${e.type}:${e.data.status}` : e.type,
    );
    expect(order.filter((t) => t.startsWith('rollback.rigCleanup'))).toEqual([
      'rollback.rigCleanup:started',
      'rollback.rigCleanup:completed',
    ]);
    expect(order.indexOf('rollback.archiveRestore')).toBeGreaterThan(
      order.indexOf('rollback.rigCleanup:completed'),
    );
    expect(order.indexOf('rollback.completed')).toBe(order.length - 1);
    const cleanup = events.find((e) => e.type === 'rollback.rigCleanup' && e.data.status === 'completed');
    expect(
      cleanup?.type === 'rollback.rigCleanup' && [...(cleanup.data.successfulCleanups ?? [])].sort(),
    ).toEqual(['cache', 'docs']);
    const restored = events.find((e) => e.type === 'rollback.archiveRestore');
    expect(restored?.type === 'rollback.archiveRestore' && restored.data).toMatchObject({
      codonId: 'two',
      restoredFiles: ['notes.log'],
    });
    expect(existsSync(join(w.root, 'cache'))).toBe(false);
    expect(existsSync(join(w.root, 'docs'))).toBe(false);
    expect(readFileSync(join(w.root, 'notes.log'), 'utf8')).toBe('log from one');
    // The archived copy stays: a rollback never deletes from rigArchive/.
    expect(readFileSync(join(w.exec, 'rigArchive/two/notes.log'), 'utf8')).toBe('log from one');
  });

  it('refuses state-modifying commands with ROLLBACK_IN_PROGRESS during a slow rollback; reads keep working', async () => {
    const w = workspace();
    const plan = 'name: t\ncodons:\n  - id: one\n    prompt: a\n  - id: two\n    prompt: b\n';
    // Codon two makes 5 000 files: restoring codon one's tree has real work to do.
    const script = `turns:\n${writeTurns('a.txt', 'A')}  - content:\n      - tool_use: { name: Bash, input: { command: "mkdir -p many && cd many && seq 1 5000 | xargs touch" } }\n  - content: [{ text: Made many files. }]\n`;
    const files = writePlanAndScript(w.dir, plan, script);
    const server = await startServer(files.plan, w.exec, ['--scripted-provider', files.script]);
    const writer = await connect(server.url);
    const other = await connect(server.url);
    const reader = await connect(server.url, 'readonly');
    await finished(writer);
    const started = other.next('rollback.started', () => true, 60_000);
    const completed = other.next('rollback.completed', () => true, 60_000);
    writer.send('rollback.toCodon', { codonId: 'one', checkpointType: 'end' });
    await started;
    const refusals = await Promise.all(
      (['codon.next', 'codon.redo', 'rollback.toLastSuccess'] as const).map((type) => {
        const answer = other.next('error', (e) => e.data.code === 'ROLLBACK_IN_PROGRESS', 10_000);
        other.send(type as 'codon.next');
        return answer;
      }),
    );
    expect(refusals.every((e) => e.data.severity === 'operation')).toBe(true);
    reader.send('ping');
    await reader.next('pong');
    const list = await reader.request('checkpoint.list', {}, 'checkpoint.list');
    expect(list.data.checkpoints.length).toBeGreaterThan(0);
    await completed;
    expect(existsSync(join(w.root, 'many'))).toBe(false);
    const snaps = (await other.syncHistory()).filter((e) => e.type === 'state.snapshot');
    expect(snaps.some((e) => e.type === 'state.snapshot' && e.data.isRollingBack)).toBe(true);
    // Two codons, 5 000 files checkpointed and restored: 23 s on a busy 2-core CI machine.
  }, 90_000);

  it('after a crash, rolls back to the last success before anything else', async () => {
    const w = workspace();
    const m = 5000 + Math.floor(Math.random() * 3000);
    const plan = 'name: t\ncodons:\n  - id: one\n    prompt: a\n  - id: two\n    prompt: b\n';
    const script = `turns:\n${writeTurns('a.txt', 'A')}  - content:\n      - tool_use: { name: Write, input: { file_path: partial.txt, content: half done } }\n${stuckTurns(m)}`;
    const files = writePlanAndScript(w.dir, plan, script);
    const first = await startServer(files.plan, w.exec, ['--scripted-provider', files.script]);
    await waitFor(() => pidsWith(`sleep ${m}`).length > 0, 'codon two to hang', 30_000);
    expect(existsSync(join(w.root, 'partial.txt'))).toBe(true);
    first.kill('SIGKILL');
    await first.exited;

    const second = await startServer(files.plan, w.exec, [
      '--scripted-provider',
      files.script,
      '--no-autostart',
    ]);
    const c = await connect(second.url);
    const history = await c.syncHistory();
    const types = history.map((e) => e.type);
    const crashed = types.lastIndexOf('rollback.started');
    expect(crashed).toBeGreaterThan(-1);
    const started = history[crashed];
    expect(started?.type === 'rollback.started' && started.data).toMatchObject({
      toCodon: 'one',
      checkpointType: 'completed',
      codonsToProcess: [],
    });
    expect(types.indexOf('rollback.completed', crashed)).toBeGreaterThan(crashed);
    // Recovery comes before the new run idles.
    expect(types.lastIndexOf('server.idle')).toBeGreaterThan(types.lastIndexOf('rollback.completed'));
    expect(existsSync(join(w.root, 'partial.txt'))).toBe(false);
    expect(readFileSync(join(w.root, 'a.txt'), 'utf8')).toBe('A');
  });
});
