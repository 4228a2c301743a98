import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RibosomeClient } from '../../../src/core/client/index.ts';
import type { ServerEvent, ServerEventOf } from '../../../src/core/protocol/index.ts';
import { e2eResources } from '../../helpers/e2e-resources.ts';
import { writePlanAndScript, writeTurns } from '../../helpers/plans.ts';
import { startServer, tempDir } from '../../helpers/server-process.ts';

/**
 * Through a usage limit (docs/unattended.md#usage-limits), with a real server, the built-in agent and
 * the scripted provider playing the limit as Anthropic does for a subscription: the codon waits for
 * the reset from its start checkpoint, then runs again; a fallbackAgent takes it over at once; a reset
 * too far fails it; a restarted server waits for the same reset; codon.next ends the wait.
 */

const { temps, clients, serve } = e2eResources();
const NO_AGENT_RETRIES = { RIBOSOME_AGENT_MAX_RETRIES: '0' };

const plan = (top: string, codons = ['one']) =>
  `name: limits\nagent: builtin\n${top}codons:\n${codons.map((id) => `  - id: ${id}\n    prompt: Do ${id}.\n`).join('')}`;
const track = (id: string, turns: string, options: { model?: string } = {}) =>
  `  - name: ${id}${options.model ? `-${options.model}` : ''}\n    match: { firstUser: "Do ${id}."${options.model ? `, model: ${options.model}` : ''} }\n    turns:\n${turns.replace(/^(?=.)/gm, '    ')}`;
/** Writes half.txt, then meets the limit (its next request is refused until the reset). */
const halfThenLimit = (resetsIn: number) =>
  `${writeTurns('half.txt', 'half done').split('  - content:\n      - text: Wrote')[0]}  - usageLimit: { resetsIn: ${resetsIn} }\n`;

const ofType = <T extends ServerEvent['type']>(events: readonly ServerEvent[], type: T) =>
  events.filter((e) => e.type === type) as unknown as ServerEventOf<T>[];
const infos = (events: readonly ServerEvent[]) => ofType(events, 'info').map((e) => e.data.message);

describe('usage limits', { timeout: 90_000 }, () => {
  it('waits for the reset from the codon start checkpoint, says until when, then runs it again and goes on', async () => {
    const script = `tracks:\n${track('one', `${halfThenLimit(3)}${writeTurns('one.txt', 'ok')}`)}${track('two', writeTurns('two.txt', 'ok'))}turns: []\n`;
    const { client, root } = await serve(
      plan('onUsageLimit: { marginMs: 300 }\n', ['one', 'two']),
      script,
      [],
      NO_AGENT_RETRIES,
    );
    const waiting = await client.next('usageLimit.waiting', () => true, 60_000);
    // The wait begins with the agent root back at the codon's start: nothing half-done is kept.
    expect(existsSync(join(root, 'half.txt'))).toBe(false);
    const { resetsAt, until, agent, codonId, message } = waiting.data;
    expect({ agent, codonId }).toEqual({ agent: 'builtin', codonId: 'one' });
    expect(resetsAt).toBeDefined();
    expect(Date.parse(until) - Date.parse(resetsAt ?? '')).toBe(300);
    expect(message).toMatch(
      /^waiting for the usage limit of builtin to reset at (?:[A-Z][a-z]{2} )?\d\d:\d\d(:\d\d)?; codon one starts again at (?:[A-Z][a-z]{2} )?\d\d:\d\d(:\d\d)?$/,
    );
    await client.next('server.idle', (e) => e.data.reason === 'all-codons-completed', 60_000);
    const history = await client.syncHistory();
    const failed = ofType(history, 'codon.completed').find((e) => !e.data.success);
    expect(failed?.data.failureReason).toMatchObject({ type: 'usage-limit', retriable: true, resetsAt });
    // Its error event asks nothing of a person: the run waits by itself.
    const error = ofType(history, 'error').find((e) => e.data.codon === 'one');
    expect(error?.data).toMatchObject({ code: 'CODON_FAILED', severity: 'warning', context: 'usage-limit' });
    const ended = ofType(history, 'usageLimit.ended');
    expect(ended.map((e) => e.data.how)).toEqual(['reset']);
    const again = ofType(history, 'codon.started').filter((e) => e.data.codonId === 'one')[1];
    // Not before the reset and its margin.
    expect(Date.parse(again?.timestamp ?? '')).toBeGreaterThanOrEqual(Date.parse(until));
    expect(again?.data.attempt).toBe(2);
    expect(readFileSync(join(root, 'one.txt'), 'utf8')).toBe('ok');
    expect(readFileSync(join(root, 'two.txt'), 'utf8')).toBe('ok');
    expect(existsSync(join(root, 'half.txt'))).toBe(false);
  });

  it("hands the codon to its fallbackAgent at once, which starts from the codon's start checkpoint", async () => {
    // The fallback checks the tree it was given: half.txt, left by the attempt that met the limit, must be gone.
    const check = `  - content:\n      - tool_use: { name: Bash, input: { command: "test -e half.txt && echo dirty > seen.txt || echo clean > seen.txt" } }\n  - content:\n      - text: Checked.\n`;
    const script = `tracks:\n${track('one', check, { model: 'small-model' })}${track('one', halfThenLimit(3600))}turns: []\n`;
    const { client, root } = await serve(
      plan('onUsageLimit: { fallbackAgent: { agent: builtin, model: small-model } }\n'),
      script,
      [],
      NO_AGENT_RETRIES,
    );
    await client.next('server.idle', (e) => e.data.reason === 'all-codons-completed', 60_000);
    const history = await client.syncHistory();
    const starts = ofType(history, 'codon.started').map((e) => [e.data.attempt, e.data.model]);
    expect(starts).toEqual([
      [undefined, undefined],
      [2, 'small-model'],
    ]);
    expect(infos(history).some((m) => m.includes('goes to its fallbackAgent builtin (small-model)'))).toBe(
      true,
    );
    expect(ofType(history, 'usageLimit.waiting')).toEqual([]);
    expect(readFileSync(join(root, 'seen.txt'), 'utf8').trim()).toBe('clean');
  });

  it('fails the codon when the reset is further away than maxWaitMs, saying when it resets', async () => {
    const script = `tracks:\n${track('one', halfThenLimit(7200))}turns: []\n`;
    const { client } = await serve(
      plan('onUsageLimit: { maxWaitMs: 3600000 }\n'),
      script,
      [],
      NO_AGENT_RETRIES,
    );
    const idle = await client.next('server.idle', (e) => e.data.lastEnded?.status === 'failed', 60_000);
    expect(idle.data.lastEnded).toEqual({ codonId: 'one', status: 'failed' });
    const history = await client.syncHistory();
    expect(ofType(history, 'usageLimit.waiting')).toEqual([]);
    expect(infos(history).find((m) => m.startsWith('codon one failed'))).toMatch(
      /^codon one failed: builtin's usage limit resets at .+ \(in (1 h 59 m|2 h)\), past onUsageLimit\.maxWaitMs \(1 h\): not waiting$/,
    );
  });

  it("the plan's clock stands still during the wait; with countWait, a clock that runs out ends the wait at once", async () => {
    // 6 s of waiting against a 5 s plan budget: not counted, the plan ends well.
    const script = `tracks:\n${track('one', `${halfThenLimit(6)}${writeTurns('one.txt', 'ok')}`)}turns: []\n`;
    const paused = await serve(
      plan('budget: { maxDurationMs: 5000 }\nonUsageLimit: { marginMs: 0 }\n'),
      script,
      [],
      NO_AGENT_RETRIES,
    );
    await paused.client.next('server.idle', (e) => e.data.reason === 'all-codons-completed', 60_000);
    // Counted: the wait (an hour) ends when the 5 s run out, and the run is held by its budget.
    const counted = await serve(
      plan('budget: { maxDurationMs: 5000 }\nonUsageLimit: { countWait: true }\n'),
      `tracks:\n${track('one', halfThenLimit(3600))}turns: []\n`,
      [],
      NO_AGENT_RETRIES,
    );
    const ended = counted.client.next('usageLimit.ended', () => true, 30_000);
    const idle = counted.client.next('server.idle', (e) => e.data.heldBy === 'budget', 30_000);
    expect((await ended).data).toMatchObject({ codonId: 'one', how: 'budget' });
    expect((await ended).data.message).toMatch(
      /^the usage-limit wait before codon one ends: .*maxDurationMs/,
    );
    expect((await idle).data.lastEnded).toEqual({ codonId: 'one', status: 'failed' });
  });

  it('a server killed during the wait waits again, when started again, for the same reset', async () => {
    const t = tempDir();
    temps.push(t);
    const files = writePlanAndScript(
      t.path,
      plan('onUsageLimit: { marginMs: 0 }\n'),
      `tracks:\n${track('one', `${halfThenLimit(8)}${writeTurns('one.txt', 'ok')}`)}turns: []\n`,
    );
    const exec = join(t.path, 'exec');
    const first = await startServer(
      files.plan,
      exec,
      ['--scripted-provider', files.script],
      20_000,
      NO_AGENT_RETRIES,
    );
    const watcher = await RibosomeClient.connect(first.url, { mode: 'readonly', sendPreviousEvents: true });
    clients.push(watcher);
    const waiting = await watcher.next('usageLimit.waiting', () => true, 60_000);
    first.kill('SIGKILL');
    await first.exited;
    const second = await startServer(
      files.plan,
      exec,
      ['--scripted-provider', files.script],
      20_000,
      NO_AGENT_RETRIES,
    );
    const client = await RibosomeClient.connect(second.url, {
      mode: 'readandwrite',
      sendPreviousEvents: true,
    });
    clients.push(client);
    // The new server journals the wait again at its start, perhaps before this client connected.
    const live = client.next('usageLimit.waiting', (e) => e.id !== waiting.id, 30_000);
    live.catch(() => {});
    const seen = (await client.syncHistory()).find(
      (e): e is ServerEventOf<'usageLimit.waiting'> => e.type === 'usageLimit.waiting' && e.id !== waiting.id,
    );
    const again = seen ?? (await live);
    expect(again.data).toMatchObject({
      codonId: 'one',
      until: waiting.data.until,
      resetsAt: waiting.data.resetsAt,
    });
    await client.next('server.idle', (e) => e.data.reason === 'all-codons-completed', 60_000);
    const history = await client.syncHistory();
    const restarted = history.findIndex((e) => e.id === again.id);
    const startedAfter = history.slice(restarted).find((e) => e.type === 'codon.started');
    expect(Date.parse(startedAfter?.timestamp ?? '')).toBeGreaterThanOrEqual(Date.parse(waiting.data.until));
    expect(
      infos(history).some((m) =>
        m.startsWith('the server stopped during a usage-limit wait: codon one starts again at'),
      ),
    ).toBe(true);
    // The provider (restarted with the server) held the same limit: the codon met it once, waited, and ran.
    expect(ofType(history, 'usageLimit.waiting').map((e) => e.data.until)).toEqual([
      waiting.data.until,
      waiting.data.until,
    ]);
    expect(ofType(history, 'codon.completed').map((e) => e.data.success)).toEqual([false, true]);
    expect(readFileSync(join(exec, 'agentRoot', 'one.txt'), 'utf8')).toBe('ok');
  });

  it('codon.next during the wait ends it and starts the codon at once', async () => {
    const script = `tracks:\n${track('one', halfThenLimit(3600))}turns: []\n`;
    const { client } = await serve(plan(''), script, [], NO_AGENT_RETRIES);
    const waiting = await client.next('usageLimit.waiting', () => true, 60_000);
    const ended = client.next('usageLimit.ended', () => true, 10_000);
    const started = client.next('codon.started', (e) => e.data.codonId === 'one', 10_000);
    client.send('codon.next');
    expect((await ended).data).toMatchObject({ codonId: 'one', how: 'command', command: 'codon.next' });
    // Long before the reset an hour away.
    expect(Date.parse((await started).timestamp)).toBeLessThan(Date.parse(waiting.data.until));
  });
});
