import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RibosomeClient } from '../../../src/core/client/index.ts';
import type { ServerEvent, ServerEventOf } from '../../../src/core/protocol/index.ts';
import { e2eResources } from '../../helpers/e2e-resources.ts';
import { writePlanAndScript, writeTurns } from '../../helpers/plans.ts';
import { runCli, startServer, tempDir } from '../../helpers/server-process.ts';

/** Automatic retries, the fallback model, stall detection and onFailure then, through a real server. */

const { temps, clients, serve } = e2eResources();
const NO_AGENT_RETRIES = { RIBOSOME_AGENT_MAX_RETRIES: '0' };

/** A plan of codons `ids` for the built-in agent; `extra` (YAML lines at codon level) goes on each. */
function plan(codons: Array<{ id: string; extra?: string }>, top = ''): string {
  return `name: retries\nagent: builtin\n${top}codons:\n${codons
    .map(({ id, extra }) => `  - id: ${id}\n    prompt: Do ${id}.\n${extra ?? ''}`)
    .join('')}`;
}
const RETRY = (max: number, backoff = 50, then = 'idle') =>
  `    onFailure: { retry: { maxAttempts: ${max}, backoffMs: ${backoff}, maxBackoffMs: ${Math.max(backoff, 1000)} }, then: ${then} }\n`;

/** A provider track for codon `id` (matched on its prompt), with `turns` (YAML list items). */
const track = (id: string, turns: string, options: { model?: string; loop?: boolean; name?: string } = {}) =>
  `  - name: ${options.name ?? id}\n    match: { firstUser: "Do ${id}."${options.model ? `, model: ${options.model}` : ''} }\n    loop: ${options.loop === true}\n    turns:\n${turns.replace(/^(?=.)/gm, '    ')}`;

const infos = (events: readonly ServerEvent[]) =>
  events.flatMap((e) => (e.type === 'info' ? [e.data.message] : []));
const starts = (events: readonly ServerEvent[], id: string) =>
  events.filter(
    (e): e is ServerEventOf<'codon.started'> => e.type === 'codon.started' && e.data.codonId === id,
  );

describe('automatic retries', () => {
  it('retries a 500 from a clean start checkpoint, and the retry succeeds', async () => {
    // Attempt 1 writes junk.txt, then the provider fails; attempt 2 writes one.txt and ends well.
    const script = `tracks:\n${track(
      'one',
      `${writeTurns('junk.txt', 'half done').split('  - content:\n      - text: Wrote')[0]}  - error: { status: 500 }\n${writeTurns('one.txt', 'ok')}`,
    )}turns: []\n`;
    const { client, root } = await serve(
      plan([{ id: 'one', extra: RETRY(3) }]),
      script,
      [],
      NO_AGENT_RETRIES,
    );
    await client.next('server.idle', (e) => e.data.reason === 'all-codons-completed', 60_000);
    const history = await client.syncHistory();
    expect(starts(history, 'one').map((e) => [e.data.attempt, e.data.maxAttempts])).toEqual([
      [1, 3],
      [2, 3],
    ]);
    expect(infos(history)).toContain('codon one failed (api-error); attempt 2 of 3 in 0.1 s');
    const completed = history.filter((e) => e.type === 'codon.completed').map((e) => e.data.success);
    expect(completed).toEqual([false, true]);
    expect(readFileSync(join(root, 'one.txt'), 'utf8')).toBe('ok');
    expect(existsSync(join(root, 'junk.txt'))).toBe(false);
  });

  it("honours the provider's retry-after: the stated wait is at least what it asked", async () => {
    const script = `tracks:\n${track('one', `  - error: { status: 429, retryAfter: 2 }\n${writeTurns('one.txt', 'ok')}`)}turns: []\n`;
    const { client } = await serve(plan([{ id: 'one', extra: RETRY(2, 10) }]), script, [], NO_AGENT_RETRIES);
    await client.next('server.idle', (e) => e.data.reason === 'all-codons-completed', 60_000);
    const said = infos(await client.syncHistory()).find((m) => m.startsWith('codon one failed'));
    expect(said).toMatch(/^codon one failed \(rate-limit\); attempt 2 of 2 in [\d.]+ s$/);
    expect(Number(/in ([\d.]+) s$/.exec(said ?? '')?.[1])).toBeGreaterThanOrEqual(2);
  });

  it('switches to the fallback model after 429s, announced, and the fallback finishes the codon', async () => {
    const fallback = track('one', writeTurns('one.txt', 'by fallback'), { model: 'small-model' });
    const main = track('one', '  - error: { status: 429, retryAfter: 0 }\n', { loop: true, name: 'main' });
    const script = `tracks:\n${fallback}${main}turns: []\n`;
    const { client, root } = await serve(
      plan([{ id: 'one', extra: `    model: main-model\n    fallbackModel: small-model\n${RETRY(3, 10)}` }]),
      script,
      [],
      NO_AGENT_RETRIES,
    );
    await client.next('server.idle', (e) => e.data.reason === 'all-codons-completed', 60_000);
    const history = await client.syncHistory();
    expect(starts(history, 'one').map((e) => [e.data.attempt, e.data.model])).toEqual([
      [1, 'main-model'],
      [2, 'small-model'],
    ]);
    expect(infos(history)).toContain('switching codon one to fallback model small-model after rate-limit');
    expect(readFileSync(join(root, 'one.txt'), 'utf8')).toBe('by fallback');
  });

  it('detects a stalled agent, reports it as a stall, and retries it', async () => {
    const script = `tracks:\n${track('one', `  - stall: true\n${writeTurns('one.txt', 'ok')}`)}turns: []\n`;
    const { client } = await serve(
      plan([{ id: 'one', extra: `    stallTimeoutMs: 5000\n${RETRY(2)}` }]),
      script,
      [],
      NO_AGENT_RETRIES,
    );
    await client.next('server.idle', (e) => e.data.reason === 'all-codons-completed', 60_000);
    const history = await client.syncHistory();
    const first = history.find((e) => e.type === 'codon.completed');
    expect(first?.type === 'codon.completed' && first.data.failureReason).toEqual({
      type: 'timeout',
      retriable: true,
      message: 'the agent stalled: no output for 5 s',
    });
    const error = history.find((e) => e.type === 'error' && e.data.severity === 'codon');
    expect(error?.type === 'error' && error.data.code).toBe('CODON_STALLED');
    expect(infos(history)).toContain('codon one failed (stall); attempt 2 of 2 in 0.1 s');
    expect(starts(history, 'one').map((e) => e.data.attempt)).toEqual([1, 2]);
  });

  it('cancels the retry when a client force-stops during the wait, and says so', async () => {
    const script = `tracks:\n${track('one', '  - error: { status: 500 }\n', { loop: true })}turns: []\n`;
    const { client } = await serve(
      plan([{ id: 'one', extra: RETRY(3, 120_000) }]),
      script,
      [],
      NO_AGENT_RETRIES,
    );
    await client.next('info', (e) => e.data.message.includes('attempt 2 of 3 in 120 s'), 30_000);
    const idle = client.next('server.idle', () => true, 20_000);
    client.send('codon.forceStop', { reason: 'enough' });
    expect((await idle).data).toMatchObject({
      reason: 'codon-completed',
      lastEnded: { codonId: 'one', status: 'failed' },
    });
    const history = await client.syncHistory();
    expect(infos(history)).toContain(
      'the retry of codon one (attempt 2 of 3) is cancelled by codon.forceStop; one stays failed (codon.next or codon.redo runs it again)',
    );
    expect(starts(history, 'one')).toHaveLength(1);
    expect(history.some((e) => e.type === 'error' && e.data.code === 'NO_CODON_RUNNING')).toBe(false);
  });
  it('a retry after a codon that archived keeps its files archived, as a rollback to the start does', async () => {
    // one archives one.txt; two fails once and is retried from its start: one's completed checkpoint,
    // which holds one.txt (taken before the archive). The retry must not bring it back.
    const script = `tracks:\n${track('one', writeTurns('one.txt', 'archived'))}${track('two', `  - error: { status: 500 }\n${writeTurns('two.txt', 'ok')}`)}turns: []\n`;
    const { client, root, exec } = await serve(
      plan([
        { id: 'one', extra: '    archiveOnSuccess: ["one.txt"]\n' },
        { id: 'two', extra: RETRY(2) },
      ]),
      script,
      [],
      NO_AGENT_RETRIES,
    );
    await client.next('server.idle', (e) => e.data.reason === 'all-codons-completed', 60_000);
    const history = await client.syncHistory();
    expect(starts(history, 'two').map((e) => e.data.attempt)).toEqual([1, 2]);
    expect(infos(history)).toContain(
      `[one] archive: one.txt moved to ${join(exec, 'rigArchive', 'one')} again`,
    );
    expect(existsSync(join(root, 'one.txt'))).toBe(false);
    expect(readFileSync(join(exec, 'rigArchive/one/one.txt'), 'utf8')).toBe('archived');
    expect(readFileSync(join(root, 'two.txt'), 'utf8')).toBe('ok');
    // two's completed checkpoint (the newest commit) adds two.txt only, as a run without the retry would.
    const added = execFileSync(
      'git',
      [
        '--git-dir',
        join(exec, '.ribosome/checkpoints.git'),
        'log',
        '--all',
        '-1',
        '--format=%s',
        '--name-status',
      ],
      { encoding: 'utf8' },
    );
    expect(added).toContain('A\ttwo.txt');
    expect(added).not.toContain('one.txt');
  });
});

describe('retries and budgets', () => {
  it('a retry whose wait outlasts the run time budget is not started; the run idles and says why', async () => {
    const script = `tracks:\n${track('one', `  - error: { status: 500 }\n${writeTurns('one.txt', 'ok')}`)}turns: []\n`;
    const { client, root } = await serve(
      // The budget is long enough for the first attempt even on a loaded machine (a sandboxed agent
      // can take seconds to start), and the retry's wait outlasts what is left of it.
      plan([{ id: 'one', extra: RETRY(2, 13_000) }], 'budget: { maxDurationMs: 12000 }\n'),
      script,
      [],
      NO_AGENT_RETRIES,
    );
    const idle = await client.next('server.idle', (e) => e.data.message.includes('budget'), 60_000);
    expect(idle.data.message).toMatch(/plan budget exceeded: maxDurationMs/);
    const history = await client.syncHistory();
    expect(infos(history)).toContain('codon one failed (api-error); attempt 2 of 2 in 13 s');
    expect(
      infos(history).some((m) => /^the retry of codon one \(attempt 2 of 2\) is not started: /.test(m)),
    ).toBe(true);
    expect(starts(history, 'one')).toHaveLength(1);
    expect(existsSync(join(root, 'one.txt'))).toBe(false);
  }, 90_000);
});

describe('onFailure then', () => {
  it('continue: goes on past the failed codon, and the idle event names it', async () => {
    const script = `tracks:\n${track('one', '  - error: { status: 500 }\n', { loop: true })}${track('two', writeTurns('two.txt', 'ok'))}turns: []\n`;
    const { client, root } = await serve(
      plan([{ id: 'one', extra: RETRY(2, 10, 'continue') }, { id: 'two' }]),
      script,
      [],
      NO_AGENT_RETRIES,
    );
    const idle = await client.next('server.idle', (e) => e.data.reason !== 'startup', 60_000);
    expect(idle.data).toMatchObject({ reason: 'codon-completed', nextCodonId: 'one', passedOver: ['one'] });
    expect(readFileSync(join(root, 'two.txt'), 'utf8')).toBe('ok');
    expect(infos(await client.syncHistory())).toContain(
      'codon one failed: 2 attempts failed (api-error); onFailure then: continue goes on past it',
    );
  });

  it('abort: ends the run as failed and stops the server, which exits 1 (without --exit-when-done too)', async () => {
    const t = tempDir();
    temps.push(t);
    const script = `tracks:\n${track('one', '  - error: { status: 500 }\n', { loop: true })}turns: []\n`;
    const files = writePlanAndScript(
      t.path,
      plan([{ id: 'one', extra: '    onFailure: { then: abort }\n' }, { id: 'two' }]),
      script,
    );
    const exec = join(t.path, 'exec');
    const run = runCli(
      ['run', files.plan, '--headless', '--execution', exec, '--scripted-provider', files.script],
      { env: NO_AGENT_RETRIES },
    );
    const exit = await run.exited;
    expect(exit.code).toBe(1);
    expect(existsSync(join(exec, 'agentRoot', 'two.txt'))).toBe(false);
    // The next server finds the run ended failed.
    const again = await startServer(files.plan, exec, [
      '--no-autostart',
      '--scripted-provider',
      files.script,
    ]);
    const c = await RibosomeClient.connect(again.url, { mode: 'readonly', sendPreviousEvents: true });
    clients.push(c);
    const ready = c.received.find((e) => e.type === 'server.ready');
    expect(ready?.type === 'server.ready' && ready.data.resumed).toMatchObject({
      previousRunStatus: 'failed',
    });
  });
});
