import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { RibosomeClient } from '../../src/core/client/index.ts';
import type { ServerEvent } from '../../src/core/protocol/index.ts';
import { sandboxSupport } from '../../src/platform/sandbox/index.ts';
import { e2eResources } from '../helpers/e2e-resources.ts';
import { type CodonBehaviour, codonScript, simplePlan } from '../helpers/plans.ts';
import { pidsWith, waitFor } from '../helpers/processes.ts';
import { runCli, runToEnd as runPlanToEnd, startServer, tempDir } from '../helpers/server-process.ts';

// Restarts, crashes and several codons per test: each agent starts in its sandbox, which a loaded
// machine makes slower than the default allows.
vi.setConfig({ testTimeout: 90_000 });

/**
 * Regressions of the orders a user hits between resume, redo, rollback and re-run: each test is
 * one of the failures found by hand or by the model-based test, replayed on the real server.
 */
const { temps, clients } = e2eResources();
const NO_RETRIES = { RIBOSOME_AGENT_MAX_RETRIES: '0' };
const PLAN = simplePlan(['one', 'two', 'three']);

function workspace() {
  const t = tempDir();
  temps.push(t);
  const plan = join(t.path, 'plan.yaml');
  writeFileSync(plan, PLAN);
  let scripts = 0;
  const script = (behaviours: Record<string, CodonBehaviour>) => {
    const file = join(t.path, `script-${++scripts}.yaml`);
    writeFileSync(file, codonScript(behaviours));
    return file;
  };
  return { dir: t.path, plan, exec: join(t.path, 'exec'), script };
}

async function connect(url: string, mode: 'readonly' | 'readandwrite' = 'readandwrite') {
  const c = await RibosomeClient.connect(url, { mode, sendPreviousEvents: true });
  clients.push(c);
  return c;
}

/** Runs the plan to its end with --exit-when-done, the agent failing at once on a provider error. */
const runToEnd = (plan: string, exec: string, script: string, extra: string[] = [], cwd?: string) =>
  runPlanToEnd(plan, exec, script, extra, { env: NO_RETRIES, ...(cwd ? { cwd } : {}) });

/** Reads the whole journal of an execution directory through a short-lived server. */
async function journalOf(plan: string, exec: string, script: string): Promise<ServerEvent[]> {
  const server = await startServer(plan, exec, ['--no-autostart', '--scripted-provider', script]);
  const c = await connect(server.url, 'readonly');
  const history = await c.syncHistory();
  server.kill('SIGTERM');
  await server.exited;
  return history;
}

/** Runs `count` codons one codon.next at a time (without autostart), each to its idle. */
async function runNext(
  c: RibosomeClient,
  count: number,
): Promise<Array<{ codonId: string; status: string } | undefined>> {
  const ended = [];
  for (let i = 0; i < count; i++) {
    const idle = c.next('server.idle', () => true, 30_000);
    c.send('codon.next');
    ended.push((await idle).data.lastEnded);
  }
  return ended;
}

/**
 * Never two codons at once: every codon.started is followed by its codon.completed before the next
 * start, and the server never says it idles while a codon is open.
 */
function expectOneAtATime(history: readonly ServerEvent[]): string[] {
  const order: string[] = [];
  let open: string | undefined;
  for (const e of history) {
    if (e.type === 'server.idle') expect(open, `server.idle while ${open} ran`).toBeUndefined();
    if (e.type === 'codon.started') {
      expect(open, `codon ${e.data.codonId} started while ${open} ran`).toBeUndefined();
      open = e.data.codonId;
      order.push(`+${e.data.codonId}`);
    } else if (e.type === 'codon.completed') {
      expect(e.data.codonId).toBe(open);
      open = undefined;
      order.push(`${e.data.success ? '=' : '!'}${e.data.codonId}`);
    }
  }
  return order;
}

describe('re-running a plan on an execution directory with runs', () => {
  it('after a failure: exits 1, then resumes at the failed codon once, runs the rest in order, then has nothing left', async () => {
    const w = workspace();
    const first = await runToEnd(w.plan, w.exec, w.script({ one: 'ok', two: 500, three: 'ok' }));
    expect(first.code).toBe(1);

    const second = await runToEnd(w.plan, w.exec, w.script({ one: 'ok', two: 'ok', three: 'ok' }));
    expect(second.stderr).toMatch(
      /resuming .*exec: run 2 \(the previous run ended with a codon failed or stopped; back to its last clean checkpoint\), 1 of 3 codons done, next: two/,
    );
    expect(second.code).toBe(0);

    const third = await runToEnd(w.plan, w.exec, w.script({ one: 'ok', two: 'ok', three: 'ok' }));
    expect(third.code).toBe(0);
    // Nothing left to run: no third run begins, the second stays the latest.
    expect(third.stderr).toMatch(/run 2, 3 of 3 codons done, every codon is done, nothing left to run/);

    const history = await journalOf(w.plan, w.exec, w.script({}));
    expect(expectOneAtATime(history)).toEqual([
      '+one',
      '=one',
      '+two',
      '!two',
      '+two',
      '=two',
      '+three',
      '=three',
    ]);
    const idles = history.flatMap((e) => (e.type === 'server.idle' ? [e.data] : []));
    expect(idles.at(-1)).toMatchObject({ reason: 'all-codons-completed' });
    expect(idles.at(-1)?.nextCodonId).toBeUndefined();
  });

  it('--fresh leaves the old directory untouched and starts anew; with --execution it refuses', async () => {
    const w = workspace();
    const script = w.script({ one: 'ok', two: 'ok', three: 'ok' });
    const defaultExec = join(w.dir, 'ribosome-runs/test');
    expect((await runToEnd(w.plan, defaultExec, script, [], w.dir)).code).toBe(0);
    const db = join(defaultExec, '.ribosome/ribosome.db');
    const before = statSync(db).mtimeMs;

    const fresh = runCli(
      ['run', w.plan, '--headless', '--exit-when-done', '--fresh', '--scripted-provider', script],
      {
        cwd: w.dir,
        env: NO_RETRIES,
      },
    );
    expect((await fresh.exited).code).toBe(0);
    expect(fresh.stderr()).toMatch(/starting afresh in .*ribosome-runs\/test-\d{4}-/);
    const dirs = readdirSync(join(w.dir, 'ribosome-runs')).sort();
    expect(dirs).toHaveLength(2);
    expect(existsSync(join(w.dir, 'ribosome-runs', dirs[1] ?? '', 'agentRoot/three.txt'))).toBe(true);
    expect(statSync(db).mtimeMs).toBe(before);

    const refused = runCli(['run', w.plan, '--headless', '--fresh', '--execution', defaultExec], {
      cwd: w.dir,
    });
    expect((await refused.exited).code).toBe(2);
    expect(refused.stderr()).toContain('already holds runs');
  });
});

describe('a server killed mid-codon, restarted with autostart', () => {
  it('ends the agent it left, reports the codon ended, runs one codon at a time, and exits 0', async () => {
    const w = workspace();
    const m = 7000 + Math.floor(Math.random() * 2000);
    const first = await startServer(
      w.plan,
      w.exec,
      ['--scripted-provider', w.script({ one: 'ok', two: { sleep: m } })],
      20_000,
      NO_RETRIES,
    );
    const c1 = await connect(first.url, 'readonly');
    await waitFor(() => pidsWith(`sleep ${m}`).length > 0, 'the stuck codon to run its command', 30_000);
    const seen = (await c1.syncHistory()).map((e) => e.id);
    first.kill('SIGKILL');
    await first.exited;

    const second = await runToEnd(w.plan, w.exec, w.script({ one: 'ok', two: 'ok', three: 'ok' }));
    expect(second.code).toBe(0);
    expect(second.stderr).toMatch(
      /run 2 \(the previous run crashed; back to its last clean checkpoint\), 1 of 3 codons done, next: two/,
    );
    expect(pidsWith(`sleep ${m}`)).toEqual([]);
    expect(existsSync(join(w.exec, '.ribosome/agents/active-agent.json'))).toBe(false);

    const history = await journalOf(w.plan, w.exec, w.script({}));
    const ids = new Set(history.map((e) => e.id));
    for (const id of seen) expect(ids.has(id)).toBe(true);
    // The interrupted codon got its codon.completed (ended by the restarted server), then ran again.
    expect(expectOneAtATime(history)).toEqual([
      '+one',
      '=one',
      '+two',
      '!two',
      '+two',
      '=two',
      '+three',
      '=three',
    ]);
    const crashed = history.find((e) => e.type === 'codon.completed' && !e.data.success);
    expect(crashed?.type === 'codon.completed' && crashed.data).toMatchObject({
      // In the sandbox the agent died with the server that started it; unconfined, the next server
      // found it running and ended it.
      exitStatus: sandboxSupport().ok ? { type: 'error' } : { type: 'killed', signal: 'SIGTERM' },
      failureReason: { type: 'unknown', retriable: false },
    });
  });

  it('twice in a row: no agent from either server survives, and the server stays up without autostart', async () => {
    const w = workspace();
    const m1 = 10_000 + Math.floor(Math.random() * 2000);
    const m2 = m1 + 3000;
    const first = await startServer(
      w.plan,
      w.exec,
      ['--scripted-provider', w.script({ one: { sleep: m1 } })],
      20_000,
      NO_RETRIES,
    );
    await waitFor(() => pidsWith(`sleep ${m1}`).length > 0, 'the first command', 30_000);
    first.kill('SIGKILL');
    await first.exited;
    const second = await startServer(
      w.plan,
      w.exec,
      ['--scripted-provider', w.script({ one: { sleep: m2 } })],
      20_000,
      NO_RETRIES,
    );
    await waitFor(() => pidsWith(`sleep ${m2}`).length > 0, 'the second command', 30_000);
    expect(pidsWith(`sleep ${m1}`)).toEqual([]);
    second.kill('SIGKILL');
    await second.exited;

    const third = await startServer(
      w.plan,
      w.exec,
      ['--no-autostart', '--scripted-provider', w.script({ one: 'ok' })],
      20_000,
      NO_RETRIES,
    );
    const c = await connect(third.url);
    const ready = c.received.find((e) => e.type === 'server.ready');
    expect(ready?.type === 'server.ready' && ready.data.resumed).toMatchObject({
      runCount: 3,
      done: 0,
      nextCodonId: 'one',
      previousRunStatus: 'crashed',
      recovered: true,
    });
    await waitFor(() => pidsWith(`sleep ${m2}`).length === 0, 'the second command to be ended');
    expect(pidsWith(`sleep ${m1}`)).toEqual([]);
    const incomplete =
      c.received.find((e) => e.type === 'incomplete.codon') ??
      (await c.next('incomplete.codon', () => true, 5_000));
    expect(incomplete?.type === 'incomplete.codon' && incomplete.data.codonId).toBe('one');
    const started = c.next('codon.started', () => true, 20_000);
    c.send('codon.redo');
    expect((await started).data.codonId).toBe('one');
    await c.next('server.idle', () => true, 30_000);
    expect(third.child.exitCode).toBeNull();
    expect(expectOneAtATime(await c.syncHistory()).slice(-2)).toEqual(['+one', '=one']);
  });
});

describe('a crash right after a rollback began its run', () => {
  it('recovers to the checkpoint the run began from when the run has no checkpoint of its own', async () => {
    const w = workspace();
    const script = w.script({ one: 'ok', two: 'ok', three: 'ok' });
    const first = await startServer(w.plan, w.exec, ['--no-autostart', '--scripted-provider', script]);
    const c = await connect(first.url);
    await runNext(c, 2);
    const rolled = c.next('rollback.completed', () => true, 30_000);
    c.send('rollback.toCodon', { codonId: 'two', checkpointType: 'start' });
    const { toRun } = (await rolled).data;
    first.kill('SIGKILL');
    await first.exited;
    // As if the server had died before the new run's first checkpoint: its branch is not there.
    const gitDir = join(w.exec, '.ribosome/checkpoints.git');
    execFileSync('git', ['--git-dir', gitDir, 'update-ref', '-d', `refs/heads/run/${toRun}`]);
    writeFileSync(join(w.exec, 'agentRoot/two.txt'), 'left by nobody');

    const second = await startServer(w.plan, w.exec, ['--no-autostart', '--scripted-provider', script]);
    const c2 = await connect(second.url);
    const ready = c2.received.find((e) => e.type === 'server.ready');
    expect(ready?.type === 'server.ready' && ready.data.resumed).toMatchObject({
      previousRunStatus: 'crashed',
      recovered: true,
      nextCodonId: 'two',
    });
    expect(existsSync(join(w.exec, 'agentRoot/one.txt'))).toBe(true);
    expect(existsSync(join(w.exec, 'agentRoot/two.txt'))).toBe(false);
    const started = c2.next('codon.started', () => true, 20_000);
    const idle = c2.next('server.idle', () => true, 30_000);
    c2.send('codon.redo');
    expect((await started).data.codonId).toBe('two');
    expect((await idle).data).toMatchObject({
      nextCodonId: 'three',
      lastEnded: { codonId: 'two', status: 'completed' },
    });
  });
});

describe('rollback, then redo and next', () => {
  it('after a rollback to a codon start, redo runs that codon and next goes on from it', async () => {
    const w = workspace();
    const server = await startServer(w.plan, w.exec, [
      '--no-autostart',
      '--scripted-provider',
      w.script({ one: 'ok', two: 'ok', three: 'ok' }),
    ]);
    const c = await connect(server.url);
    expect(await runNext(c, 3)).toEqual(
      ['one', 'two', 'three'].map((codonId) => ({ codonId, status: 'completed' })),
    );
    const rolled = c.next('server.idle', () => true, 30_000);
    c.send('rollback.toCodon', { codonId: 'two', checkpointType: 'start' });
    // Sent right behind the rollback, before it began: refused, not run after it.
    const inProgress = c.next('error', (e) => e.data.code === 'ROLLBACK_IN_PROGRESS', 10_000);
    c.send('codon.next');
    await inProgress;
    expect((await rolled).data).toMatchObject({ reason: 'codon-completed', nextCodonId: 'two' });

    const redone = c.next('codon.started', () => true, 20_000);
    const idle = c.next('server.idle', () => true, 30_000);
    c.send('codon.redo');
    expect((await redone).data.codonId).toBe('two');
    expect((await idle).data).toMatchObject({ reason: 'codon-completed', nextCodonId: 'three' });

    const next = c.next('codon.started', () => true, 20_000);
    const done = c.next('server.idle', () => true, 30_000);
    c.send('codon.next');
    expect((await next).data.codonId).toBe('three');
    expect((await done).data.reason).toBe('all-codons-completed');
    const refused = c.next('error', (e) => e.data.code === 'NO_NEXT_CODON', 10_000);
    c.send('codon.next');
    await refused;
  });
});

describe('a crash while idle', () => {
  it('the restarted server idles exactly once, and says what runs next', async () => {
    const w = workspace();
    const script = w.script({ one: 'ok', two: 'ok', three: 'ok' });
    const first = await startServer(w.plan, w.exec, ['--no-autostart', '--scripted-provider', script]);
    const c = await connect(first.url);
    await runNext(c, 1);
    first.kill('SIGKILL');
    await first.exited;
    const second = await startServer(w.plan, w.exec, ['--no-autostart', '--scripted-provider', script]);
    const c2 = await connect(second.url);
    if (!c2.handshake.eventHistory.some((e) => e.type === 'server.idle')) {
      await c2.next('server.idle', () => true, 10_000);
    }
    // A second idle would follow the first at once: a ping answered after it bounds the wait.
    await c2.request('ping', {}, 'pong');
    const history = await c2.syncHistory();
    const runStarts = history.flatMap((e, i) =>
      e.type === 'state.transition' && e.data.transitionType === 'RunStarted' ? [i] : [],
    );
    const sinceRestart = history.slice(runStarts.at(-1));
    const idles = sinceRestart.flatMap((e) => (e.type === 'server.idle' ? [e.data] : []));
    expect(idles).toHaveLength(1);
    expect(idles[0]).toMatchObject({
      reason: 'startup',
      nextCodonId: 'two',
      lastEnded: { codonId: 'one', status: 'completed' },
    });
    expectOneAtATime(history);
  });
});

describe('the start of a codon across restarts', () => {
  it('after a rollback to two start, a shutdown and a crash while idle, redo still runs two', async () => {
    const w = workspace();
    const script = w.script({ one: 'ok', two: 'ok', three: 'ok' });
    const first = await startServer(w.plan, w.exec, ['--no-autostart', '--scripted-provider', script]);
    const c = await connect(first.url);
    await runNext(c, 3);
    const rolled = c.next('server.idle', () => true, 30_000);
    c.send('rollback.toCodon', { codonId: 'two', checkpointType: 'start' });
    await rolled;
    c.send('server.shutdown', { reason: 'done for today' });
    await first.exited;

    const secondAt = new Date().toISOString();
    const second = await startServer(w.plan, w.exec, ['--no-autostart', '--scripted-provider', script]);
    const c2 = await connect(second.url);
    const idle = await startupIdle(c2, secondAt);
    expect(idle?.data).toMatchObject({ reason: 'startup', nextCodonId: 'two' });
    expect(idle?.data.message).not.toContain('codon.redo runs one');
    second.kill('SIGKILL');
    await second.exited;

    const thirdAt = new Date().toISOString();
    const third = await startServer(w.plan, w.exec, ['--no-autostart', '--scripted-provider', script]);
    const c3 = await connect(third.url);
    // The killed server had begun no run (it ran nothing): no crash to recover, two is still next.
    const idle3 = await startupIdle(c3, thirdAt);
    expect(idle3?.data).toMatchObject({ reason: 'startup', nextCodonId: 'two' });
    expect(c3.received.some((e) => e.type === 'incomplete.codon')).toBe(false);
    const started = c3.next('codon.started', () => true, 20_000);
    c3.send('codon.redo');
    expect((await started).data.codonId).toBe('two');
  });
});

/**
 * A server's first idle, from the history when it came before the handshake, else the next to come: a
 * server listens once its run has begun, and announces its idle after (an idle older than `since`, in
 * the history, is an earlier server's).
 */
async function startupIdle(c: Awaited<ReturnType<typeof connect>>, since: string) {
  const ours = (e: { type: string; timestamp: string }) => e.type === 'server.idle' && e.timestamp >= since;
  const seen = c.handshake.eventHistory.find(ours) ?? c.received.find(ours);
  return seen?.type === 'server.idle' ? seen : c.next('server.idle', () => true, 20_000);
}

describe('two stops of one codon', () => {
  it('the second skip is refused and never skips the codon that starts next', async () => {
    const w = workspace();
    const m = 16_000 + Math.floor(Math.random() * 2000);
    const server = await startServer(
      w.plan,
      w.exec,
      ['--scripted-provider', w.script({ one: { sleep: m }, two: 'ok', three: 'ok' })],
      20_000,
      NO_RETRIES,
    );
    const c = await connect(server.url);
    const other = await connect(server.url);
    await waitFor(() => pidsWith(`sleep ${m}`).length > 0, 'the command', 30_000);
    const refused = other.next(
      'error',
      (e) => e.data.code === 'CODON_STOPPING' || e.data.code === 'NO_CODON_RUNNING',
      20_000,
    );
    const done = c.next('server.idle', (e) => e.data.reason === 'all-codons-completed', 60_000);
    c.send('codon.skip');
    other.send('codon.skip');
    await refused;
    await done;
    const ends = (await c.syncHistory()).flatMap((e) =>
      e.type === 'codon.completed' ? [`${e.data.codonId}:${e.data.success}`] : [],
    );
    expect(ends).toEqual(['one:false', 'two:true', 'three:true']);
  });
});

describe('honest exits', () => {
  it('--exit-when-done exits 1 when the last codon was stopped', async () => {
    const w = workspace();
    const m = 13_000 + Math.floor(Math.random() * 2000);
    const server = await startServer(
      w.plan,
      w.exec,
      ['--exit-when-done', '--scripted-provider', w.script({ one: { sleep: m } })],
      20_000,
      NO_RETRIES,
    );
    const c = await connect(server.url);
    await waitFor(() => pidsWith(`sleep ${m}`).length > 0, 'the command', 30_000);
    c.send('codon.forceStop', { reason: 'test' });
    expect((await server.exited).code).toBe(1);
    expect(pidsWith(`sleep ${m}`)).toEqual([]);
  });

  it('--exit-when-done exits 1 when shut down before every codon is done', async () => {
    const w = workspace();
    const m = 18_000 + Math.floor(Math.random() * 2000);
    const server = await startServer(
      w.plan,
      w.exec,
      ['--exit-when-done', '--scripted-provider', w.script({ one: 'ok', two: { sleep: m } })],
      20_000,
      NO_RETRIES,
    );
    await waitFor(() => pidsWith(`sleep ${m}`).length > 0, 'the command', 30_000);
    server.kill('SIGTERM');
    expect((await server.exited).code).toBe(1);
    expect(server.stderr()).toContain('stopped before every codon was done');
  });
});
