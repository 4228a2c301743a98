/**
 * A kill between the two halves of every step where git or the file system and the state must agree
 * (RIBOSOME_KILL_AT, src/platform/storage/kill-point.ts), then a restart: each codon's work is applied exactly
 * once, the agent root equals the checkpoint the state recorded last, each codon has one completed
 * checkpoint in the lineage, every codon.started has its codon.completed, and a checkpoint git holds
 * but the state never recorded is set aside on a side ref and named in the crash warning.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RibosomeClient } from '../../src/core/client/index.ts';
import { CheckpointStore } from '../../src/execution/checkpoints/index.ts';
import type { KillPoint } from '../../src/platform/storage/kill-point.ts';
import { e2eResources } from '../helpers/e2e-resources.ts';
import { processesUnder } from '../helpers/leftover-processes.ts';
import { writePlanAndScript } from '../helpers/plans.ts';
import { pidsWith, waitFor } from '../helpers/processes.ts';
import { journalRows, runCli, startServer, tempDir } from '../helpers/server-process.ts';

const { temps, clients } = e2eResources();

type Codon = {
  id: string;
  /** Shell the agent runs: it appends the codon's id to log.txt, so a second application shows. */
  bash?: string;
  /** Its first turn is a provider error (a failure, or a retry's first attempt). */
  failFirst?: boolean;
  /** After its work, the provider fails (the codon fails with its work in the tree). */
  failAfter?: boolean;
  /** After its work, a long sleep (marked) that a test stops with codon.skip. */
  stuck?: number;
  extra?: string;
};

const ONE: Codon = {
  id: 'one',
  extra: '    rigSetup:\n      - run: mkdir -p rig && echo rig >> rig/setup.log\n',
};
const TWO: Codon = {
  id: 'two',
  bash: 'echo two >> log.txt && echo kept > two.tmp',
  extra: '    outputFiles: ["log.txt"]\n    archiveOnSuccess: ["two.tmp"]\n',
};
const THREE: Codon = { id: 'three' };

function planOf(codons: Codon[], top = ''): string {
  return `name: kills\nagent: builtin\n${top}codons:\n${codons
    .map((c) => `  - id: ${c.id}\n    name: Codon ${c.id}\n    prompt: Do ${c.id}.\n${c.extra ?? ''}`)
    .join('')}`;
}

function scriptOf(codons: Codon[]): string {
  const tracks = codons.map((c) => {
    const bash = c.bash ?? `echo ${c.id} >> log.txt`;
    const turns = [
      ...(c.failFirst ? ['- error: { status: 500 }'] : []),
      `- content:\n    - tool_use: { name: Bash, input: { command: ${JSON.stringify(bash)} } }`,
      ...(c.stuck
        ? [
            `- content:\n    - tool_use: { name: Bash, input: { command: "sleep ${c.stuck}", timeout: 600000 } }`,
          ]
        : []),
      c.failAfter ? '- error: { status: 500 }' : `- content:\n    - text: Did ${c.id}.`,
    ];
    const indented = turns.join('\n').replace(/^/gm, '      ');
    return `  - name: ${c.id}\n    match: { firstUser: "Do ${c.id}." }\n    loop: true\n    turns:\n${indented}\n`;
  });
  return `tracks:\n${tracks.join('')}turns: []\n`;
}

type Setup = { dir: string; exec: string; plan: string; script: string; args: string[] };

function setUp(codons: Codon[], top = '', args: string[] = []): Setup {
  const t = tempDir('ribosome-kill-');
  temps.push(t);
  const files = writePlanAndScript(t.path, planOf(codons, top), scriptOf(codons));
  return { dir: t.path, exec: join(t.path, 'exec'), ...files, args };
}

// No automatic retry of a provider error inside the agent: a 500 fails the attempt at once.
const ENV = { RIBOSOME_AGENT_MAX_RETRIES: '0' };

/** One life that dies at `point` by itself; returns its stderr. */
async function dieAt(s: Setup, point: string, extra: string[] = []): Promise<string> {
  const proc = runCli(
    [
      'run',
      s.plan,
      '--headless',
      '--execution',
      s.exec,
      '--scripted-provider',
      s.script,
      ...s.args,
      ...extra,
    ],
    { env: { ...ENV, RIBOSOME_KILL_AT: point } },
  );
  const timer = setTimeout(() => proc.kill('SIGKILL'), 60_000);
  const exit = await proc.exited;
  clearTimeout(timer);
  const stderr = proc.stderr();
  expect(stderr, stderr).toContain(`kill point ${point.split('#')[0]} reached`);
  expect(exit.signal).toBe('SIGKILL');
  return stderr;
}

/** The life after: runs to the end of the plan; returns its exit code and stderr. */
async function finish(s: Setup): Promise<{ code: number | null; stderr: string }> {
  const proc = runCli(
    [
      'run',
      s.plan,
      '--headless',
      '--exit-when-done',
      '--execution',
      s.exec,
      '--scripted-provider',
      s.script,
      ...s.args,
    ],
    { env: ENV },
  );
  const timer = setTimeout(() => proc.kill('SIGKILL'), 60_000);
  const { code } = await proc.exited;
  clearTimeout(timer);
  return { code, stderr: proc.stderr() };
}

const agentRoot = (s: Setup) => join(s.exec, 'agentRoot');
const gitDir = (s: Setup) => join(s.exec, '.ribosome', 'checkpoints.git');
const logLines = (s: Setup) =>
  readFileSync(join(agentRoot(s), 'log.txt'), 'utf8')
    .trim()
    .split('\n');

/** The sha of the checkpoint the state recorded last (CheckpointCreated or InitialCheckpointSet). */
function lastRecorded(s: Setup): string {
  const shas = journalRows(s.exec).flatMap((r) => {
    if (r.type !== 'state.transition') return [];
    const t = r.data.transition as { type: string; data: { sha?: string; checkpoint?: { sha: string } } };
    if (t.type === 'CheckpointCreated') return [t.data.checkpoint?.sha ?? ''];
    if (t.type === 'InitialCheckpointSet') return [t.data.sha ?? ''];
    return [];
  });
  const last = shas.at(-1);
  if (!last) throw new Error('no checkpoint recorded');
  return last;
}

/** What differs between the agent root and a checkpoint, as git sees it (an index of its own). */
function differences(s: Setup, sha: string): string[] {
  const index = join(s.dir, 'compare.index');
  const env = { ...process.env, GIT_DIR: gitDir(s), GIT_WORK_TREE: agentRoot(s), GIT_INDEX_FILE: index };
  const git = (...args: string[]) => execFileSync('git', args, { env, cwd: agentRoot(s) }).toString();
  git('read-tree', sha);
  spawnSync('git', ['update-index', '-q', '--refresh'], { env, cwd: agentRoot(s) });
  const changed = git('diff-files', '--name-only').split('\n');
  const added = git('ls-files', '--others', '--exclude-standard').split('\n');
  return [...changed, ...added].filter((l) => l !== '');
}

/** The checkpoints of the current run's lineage (first parent), as the store reads them. */
async function lineage(s: Setup) {
  const opened = await CheckpointStore.open({ gitDir: gitDir(s), workTree: agentRoot(s) });
  if (!opened.ok) throw new Error(opened.error.message);
  const branch = await opened.value.currentBranch();
  if (!branch.ok || !branch.value) throw new Error('no current run branch');
  const runId = decodeURIComponent(branch.value.slice('run/'.length));
  const listed = await opened.value.list(runId);
  if (!listed.ok) throw new Error(listed.error.message);
  return listed.value;
}

/** The checks every kill point must pass once the plan has run to its end. */
async function checkWhole(s: Setup, expectLog: string[], completed: string[]): Promise<void> {
  expect(logLines(s)).toEqual(expectLog);
  expect(differences(s, lastRecorded(s))).toEqual([]);
  const records = await lineage(s);
  const completedOf = (id: string) =>
    records.filter((c) => !c.initial && c.codonId === id && c.checkpointType === 'completed').length;
  for (const id of completed) expect(completedOf(id), `completed checkpoints of ${id}`).toBe(1);
  // Every codon.started has its codon.completed, in the same run, before the next codon.started.
  const rows = journalRows(s.exec).filter((r) => r.type === 'codon.started' || r.type === 'codon.completed');
  for (let i = 0; i < rows.length; i += 2) {
    expect(rows[i]?.type).toBe('codon.started');
    expect(rows[i + 1]).toMatchObject({ type: 'codon.completed', runId: rows[i]?.runId });
    expect(rows[i + 1]?.data.codonId).toBe(rows[i]?.data.codonId);
  }
}

/** The side refs orphan checkpoints were set aside on. */
function orphanRefs(s: Setup): string[] {
  return execFileSync('git', ['--git-dir', gitDir(s), 'for-each-ref', '--format=%(refname)', 'refs/orphans/'])
    .toString()
    .split('\n')
    .filter((l) => l !== '');
}

function crashWarnings(s: Setup): string[] {
  return journalRows(s.exec).flatMap((r) =>
    r.type === 'error' && (r.data.code === 'RUN_CRASHED' || r.data.code === 'CHECKPOINT_WARNING')
      ? [String(r.data.message)]
      : [],
  );
}

const ALL = ['one', 'two', 'three'];

describe('RIBOSOME_KILL_AT that names no kill point', () => {
  it('refuses to start with one line and exit 2; other commands are not affected', async () => {
    const s = setUp([THREE]);
    const bad = runCli(['run', s.plan, '--headless', '--execution', s.exec], {
      env: { RIBOSOME_KILL_AT: 'nope' },
    });
    expect((await bad.exited).code).toBe(2);
    expect(bad.stderr()).toMatch(
      /^ribosome: RIBOSOME_KILL_AT=nope: no such kill point; one of checkpoint:initial/,
    );
    expect(bad.stderr()).not.toMatch(/\n\s+at /);
    const version = runCli(['--version'], { env: { RIBOSOME_KILL_AT: 'nope' } });
    expect((await version.exited).code).toBe(0);
  });
});

describe('a kill between a step and its record: the run recovers to what the state recorded', {
  timeout: 120_000,
}, () => {
  it.each<[KillPoint | `${KillPoint}#${number}`, string]>([
    ['checkpoint:completed#2', "codon two's completed checkpoint"],
    ['checkpoint:rig-setup', "codon one's rig-setup checkpoint"],
    ['checkpoint:initial', "the first run's initial checkpoint"],
    ['outputs-copied', "codon two's outputFiles"],
    ['archive-moved', "codon two's archive"],
  ])('%s (%s): each codon once, the tree as recorded', async (point) => {
    const s = setUp([ONE, TWO, THREE]);
    const output = join(s.exec, 'output');
    await dieAt(s, point);
    const after = await finish(s);
    expect(after.code, after.stderr).toBe(0);
    await checkWhole(s, ['one', 'two', 'three'], ALL);
    expect(readFileSync(join(agentRoot(s), 'rig', 'setup.log'), 'utf8')).toBe('rig\n');
    // Two's outputs and archive: as one clean run leaves them.
    expect(readFileSync(join(output, 'log.txt'), 'utf8')).toBe('one\ntwo\n');
    expect(existsSync(join(agentRoot(s), 'two.tmp'))).toBe(false);
    expect(readFileSync(join(s.exec, 'rigArchive', 'two', 'two.tmp'), 'utf8')).toBe('kept\n');
    if (point.startsWith('checkpoint:') && point !== 'checkpoint:initial') {
      // The commit the state never recorded: kept aside, named in the crash warning.
      const refs = orphanRefs(s);
      expect(refs).toHaveLength(1);
      expect(crashWarnings(s).join('\n')).toContain(refs[0]);
    }
  });

  it('checkpoint:error: a failed codon is not returned to; its work is applied once per attempt', async () => {
    const s = setUp([ONE, TWO, { id: 'three', failAfter: true }]);
    await dieAt(s, 'checkpoint:error');
    const after = await finish(s);
    expect(after.code, after.stderr).toBe(1);
    // The failed attempt's error checkpoint holds "three": the recovery went back before it.
    await checkWhole(s, ['one', 'two', 'three'], ['one', 'two']);
    expect(orphanRefs(s)).toHaveLength(1);
  });

  it('checkpoint:skipped: a skip the state never recorded runs the codon again from its start', async () => {
    const marker = 7000 + Math.floor(Math.random() * 900);
    const s = setUp([ONE, TWO, { id: 'three', stuck: marker }]);
    const skipWhenStuck = async (url: string) => {
      const client = await RibosomeClient.connect(url, { mode: 'readandwrite' });
      clients.push(client);
      await waitFor(() => pidsWith(`sleep ${marker}`).length > 0, 'codon three to run its sleep', 30_000);
      client.send('codon.skip');
    };
    const first = await startServer(s.plan, s.exec, ['--scripted-provider', s.script], 20_000, {
      ...ENV,
      RIBOSOME_KILL_AT: 'checkpoint:skipped',
    });
    await skipWhenStuck(first.url);
    expect((await first.exited).signal).toBe('SIGKILL');
    expect(first.stderr()).toContain('kill point checkpoint:skipped reached');
    const second = await startServer(
      s.plan,
      s.exec,
      ['--scripted-provider', s.script, '--exit-when-done'],
      20_000,
      ENV,
    );
    await skipWhenStuck(second.url);
    expect((await second.exited).code).toBe(0);
    await checkWhole(s, ['one', 'two', 'three'], ['one', 'two']);
    expect(orphanRefs(s)).toHaveLength(1);
  });

  it('rollback-restored: a rollback the state never switched to is not half-done', async () => {
    const s = setUp([ONE, TWO, THREE]);
    const first = await startServer(s.plan, s.exec, ['--scripted-provider', s.script], 20_000, {
      ...ENV,
      RIBOSOME_KILL_AT: 'rollback-restored',
    });
    const client = await RibosomeClient.connect(first.url, {
      mode: 'readandwrite',
      sendPreviousEvents: true,
    });
    clients.push(client);
    await client.waitFor(
      (e) => e.type === 'server.idle' && e.data.reason === 'all-codons-completed',
      60_000,
      'the plan to end',
    );
    client.send('rollback.toCodon', { codonId: 'two', checkpointType: 'start', autoRestart: true });
    expect((await first.exited).signal).toBe('SIGKILL');
    const after = await finish(s);
    expect(after.code, after.stderr).toBe(0);
    await checkWhole(s, ['one', 'two', 'three'], ALL);
    // The crash warning says the rollback was cut short and not applied (trial 37/27 M2).
    expect(crashWarnings(s).join('\n')).toMatch(
      /stopped during a rollback: a rollback to one \(completed [0-9a-f]{12}\) was under way and is not applied.*send the rollback again/,
    );
  });

  it('rollback-restored from a completed run (a start that began no run): the next start undoes it', async () => {
    const s = setUp([ONE, TWO, THREE]);
    const done = await finish(s);
    expect(done.code, done.stderr).toBe(0);
    // This server finds every codon done and begins no run: the rollback is from the completed one.
    const second = await startServer(s.plan, s.exec, ['--scripted-provider', s.script], 20_000, {
      ...ENV,
      RIBOSOME_KILL_AT: 'rollback-restored',
    });
    // A command waits for the server's start to be done: the rollback comes after it.
    const client = await RibosomeClient.connect(second.url, { mode: 'readandwrite' });
    clients.push(client);
    client.send('rollback.toCodon', { codonId: 'two', checkpointType: 'start', autoRestart: false });
    expect((await second.exited).signal).toBe('SIGKILL');
    const after = await finish(s);
    expect(after.code, after.stderr).toBe(0);
    // The agent root is the completed run's end again, not the half-applied rollback's target.
    await checkWhole(s, ['one', 'two', 'three'], ALL);
    expect(crashWarnings(s).join('\n')).toMatch(
      /a rollback did not finish: a rollback to one \(completed [0-9a-f]{12}\) was under way and is not applied/,
    );
  });

  it('recovery-restored: a recovery killed half-way recovers again', async () => {
    const s = setUp([ONE, TWO, THREE]);
    await dieAt(s, 'checkpoint:completed#2');
    await dieAt(s, 'recovery-restored');
    const after = await finish(s);
    expect(after.code, after.stderr).toBe(0);
    await checkWhole(s, ['one', 'two', 'three'], ALL);
  });

  it("retry-restored: a retry's return to the codon's start, not yet recorded as a new attempt", async () => {
    const s = setUp(
      [ONE, TWO, { id: 'three', failFirst: true }],
      'onFailure:\n  retry: { maxAttempts: 2, backoffMs: 0 }\n',
    );
    await dieAt(s, 'retry-restored');
    const after = await finish(s);
    expect(after.code, after.stderr).toBe(0);
    await checkWhole(s, ['one', 'two', 'three'], ALL);
  });

  it('agent-spawned: a server killed as its agent starts leaves nothing of it running; the next start runs the codon again', async () => {
    const s = setUp([ONE, TWO, THREE]);
    await dieAt(s, 'agent-spawned');
    // No restart needed: a sandboxed agent ends with its lifeline (test/agents/sandbox/lifeline.e2e.test.ts),
    // one without a sandbox at the end of its stdin.
    const left = () => processesUnder(s.dir);
    await waitFor(
      () => left().length === 0,
      `the agent's processes to end (${left()
        .map((p) => p.cmdline)
        .join('; ')})`,
      10_000,
    );
    const after = await finish(s);
    expect(after.code, after.stderr).toBe(0);
    await checkWhole(s, ALL, ALL);
  });

  it('workspace-moved: a clone killed half-way is made again at the next start', async () => {
    const repo = tempDir('ribosome-kill-repo-');
    temps.push(repo);
    const git = (...args: string[]) =>
      execFileSync('git', ['-C', repo.path, ...args], {
        env: {
          ...process.env,
          GIT_AUTHOR_NAME: 't',
          GIT_AUTHOR_EMAIL: 't@t',
          GIT_COMMITTER_NAME: 't',
          GIT_COMMITTER_EMAIL: 't@t',
        },
      });
    git('init', '-q');
    mkdirSync(join(repo.path, 'src'));
    for (const name of ['a.txt', 'b.txt', 'src/c.txt']) writeFileSync(join(repo.path, name), `${name}\n`);
    git('add', '-A');
    git('commit', '-qm', 'start');
    const s = setUp([ONE, TWO, THREE], '', ['--workspace', repo.path]);
    await dieAt(s, 'workspace-moved');
    const after = await finish(s);
    expect(after.code, after.stderr).toBe(0);
    expect(after.stderr).toContain('the clone made again');
    for (const name of ['a.txt', 'b.txt', 'src/c.txt'])
      expect(readFileSync(join(agentRoot(s), name), 'utf8')).toBe(`${name}\n`);
    await checkWhole(s, ['one', 'two', 'three'], ALL);
  });
});
