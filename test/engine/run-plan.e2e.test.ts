import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RibosomeClient } from '../../src/core/client/index.ts';
import type { ServerEvent } from '../../src/core/protocol/index.ts';
import { e2eResources } from '../helpers/e2e-resources.ts';
import { simplePlan, writePlanAndScript, writeTurns } from '../helpers/plans.ts';
import { runCli, startServer, tempDir } from '../helpers/server-process.ts';

const { temps, clients, serve } = e2eResources();

function dir(): string {
  const t = tempDir();
  temps.push(t);
  return t.path;
}

const THREE = `turns:\n${writeTurns('a.txt', 'alpha')}${writeTurns('b.txt', 'beta')}${writeTurns('c.txt', 'gamma')}`;

async function connect(url: string) {
  const c = await RibosomeClient.connect(url, { mode: 'readandwrite', sendPreviousEvents: true });
  clients.push(c);
  return c;
}

const types = (events: readonly ServerEvent[], wanted: string[]) =>
  events
    .filter((e) => wanted.includes(e.type))
    .map((e) =>
      e.type === 'codon.started' || e.type === 'codon.completed'
        ? `${e.type}:${e.data.codonId}`
        : e.type === 'server.idle'
          ? `idle:${e.data.reason}`
          : e.type,
    );

describe('running a plan', () => {
  it('runs three codons by itself with autostart, with every event in order', async () => {
    const { server, exec } = await serve(simplePlan(['one', 'two', 'three']), THREE);
    const c = await connect(server.url);
    const done = c.handshake.eventHistory.some((e) => e.type === 'server.idle')
      ? undefined
      : await c.next('server.idle', (e) => e.data.reason === 'all-codons-completed', 60_000);
    expect(done?.data.message ?? 'already done').toBeTruthy();
    const history = await c.syncHistory();
    expect(types(history, ['codon.started', 'codon.completed', 'server.idle'])).toEqual([
      'codon.started:one',
      'codon.completed:one',
      'codon.started:two',
      'codon.completed:two',
      'codon.started:three',
      'codon.completed:three',
      'idle:all-codons-completed',
    ]);
    for (const [file, text] of [
      ['a.txt', 'alpha'],
      ['b.txt', 'beta'],
      ['c.txt', 'gamma'],
    ]) {
      expect(readFileSync(join(exec, 'agentRoot', file!), 'utf8')).toBe(text);
    }
    const completed = history.filter((e) => e.type === 'codon.completed');
    for (const e of completed) {
      expect(e.data).toMatchObject({ success: true, exitStatus: { type: 'success' } });
      expect(e.data.cost).toBeGreaterThan(0);
      expect(e.data.duration).toBeGreaterThan(0);
    }
    // Within a codon: started, the agent's actions with their usage as each line shows it (the spend
    // counted before the tool runs), tool results, then completed.
    const one = history.slice(
      history.findIndex((e) => e.type === 'codon.started'),
      history.findIndex((e) => e.type === 'codon.completed') + 1,
    );
    expect(
      types(one, ['codon.started', 'assistant.action', 'tool.result', 'token.usage', 'codon.completed']),
    ).toEqual([
      'codon.started:one',
      'token.usage',
      'assistant.action',
      // The message's second block shows more of its output.
      'token.usage',
      'assistant.action',
      'tool.result',
      'token.usage',
      'assistant.action',
      // The agent's own totals from its result line: the authoritative figure.
      'token.usage',
      'codon.completed:one',
    ]);
    const tool = one.find((e) => e.type === 'assistant.action' && e.data.action === 'tool_use');
    expect(tool?.type === 'assistant.action' && tool.data).toMatchObject({
      toolName: 'Write',
      toolInput: { file_path: 'a.txt' },
    });
    const result = one.find((e) => e.type === 'tool.result');
    expect(result?.type === 'tool.result' && result.data).toMatchObject({
      toolName: 'Write',
      isError: false,
      truncated: false,
    });
    // Every transition type of a normal run is journaled as state.transition, with the resulting state.
    const transitions = history.flatMap((e) => (e.type === 'state.transition' ? [e.data] : []));
    const kinds = new Set(transitions.map((t) => t.transitionType));
    for (const k of [
      'RunStarted',
      'CodonStarted',
      'CodonTransitioned',
      'CostsIncremented',
      'CodonFinalCostSet',
      'AssistantMessageCountUpdated',
    ]) {
      expect(kinds).toContain(k);
    }
    const last = transitions.at(-1)!;
    expect(last.resultingState.runCount).toBe(1);
    expect(last.resultingState.totalCost).toBeCloseTo(
      completed.reduce((s, e) => s + (e.type === 'codon.completed' ? e.data.cost : 0), 0),
      6,
    );
    // Snapshots after codon starts and ends.
    const snapshots = history.filter((e) => e.type === 'state.snapshot');
    expect(snapshots.length).toBeGreaterThanOrEqual(6);
    const final = snapshots.at(-1);
    expect(final?.type === 'state.snapshot' && final.data.completedCodons.map((x) => x.status)).toEqual([
      'completed',
      'completed',
      'completed',
    ]);
  });

  it('loads prompt files with front matter, continues sessions, and reports file changes', async () => {
    const d = dir();
    const { mkdirSync, writeFileSync } = await import('node:fs');
    mkdirSync(join(d, 'prompts'));
    writeFileSync(
      join(d, 'prompts/first.md'),
      '---\nname: First prompt\ndescription: writes a file\ntags: [demo, files]\nversion: "1.2"\nauthor: Ada\n---\nWrite a.txt please.\n',
    );
    const plan = `name: t\ncodons:\n  - id: one\n    promptFile: prompts/first.md\n  - id: two\n    prompt: Go on.\n    continuation: continue-previous\n`;
    const files = writePlanAndScript(
      d,
      plan,
      `turns:\n${writeTurns('a.txt', 'alpha')}${writeTurns('b.txt', 'beta')}`,
    );
    const server = await startServer(files.plan, join(d, 'exec'), ['--scripted-provider', files.script]);
    const c = await connect(server.url);
    if (!c.handshake.eventHistory.some((e) => e.type === 'server.idle')) {
      await c.next('server.idle', (e) => e.data.reason === 'all-codons-completed', 60_000);
    }
    const history = await c.syncHistory();
    const started = history.flatMap((e) => (e.type === 'codon.started' ? [e.data] : []));
    expect(started[0]?.promptMetadata).toEqual({
      name: 'First prompt',
      description: 'writes a file',
      tags: ['demo', 'files'],
      version: '1.2',
      author: 'Ada',
    });
    expect(started[1]?.previousSessionId).toBe(started[0]?.sessionId);
    // The agent resumed the first codon's session forked (--resume --fork-session): the second codon
    // reports a session of its own that carries the first conversation, and the first stays as it was.
    const agentSessions = history.flatMap((e) =>
      e.type === 'state.transition' && typeof e.data.transition.data.agentSessionId === 'string'
        ? [e.data.transition.data.agentSessionId]
        : [],
    );
    expect(agentSessions).toHaveLength(2);
    const [first, second] = agentSessions.map((id) =>
      readFileSync(join(d, 'exec/.ribosome/agents/sessions', `${id}.json`), 'utf8'),
    );
    expect(second).toContain('Write a.txt please.');
    expect(second).toContain('Go on.');
    expect(first).toContain('Write a.txt please.');
    expect(first).not.toContain('Go on.');
    const files2 = history.flatMap((e) =>
      e.type === 'file.updated' ? [`${e.data.action}:${e.data.path}:${e.data.content}`] : [],
    );
    expect(files2).toContain('created:a.txt:alpha');
    expect(files2).toContain('created:b.txt:beta');
    // The tree is debounced: it may come a moment after the codon ended.
    const names = (e: ServerEvent | undefined) =>
      e?.type === 'filetree.updated' ? e.data.tree.map((n) => n.name).sort() : [];
    const complete = (e: ServerEvent | undefined) => names(e).includes('b.txt');
    const tree = history.findLast(complete) ?? (await c.next('filetree.updated', complete, 10_000));
    // The data directory's link is in the agent root (docs/agents.md#what-stays-inside-the-agent-root).
    expect(names(tree)).toEqual(['a.txt', 'b.txt', 'ribosome-data']);
  });

  it('without autostart idles after each codon and runs one per codon.next', async () => {
    const { server } = await serve(
      simplePlan(['one', 'two']),
      `turns:\n${writeTurns('a.txt', 'a')}${writeTurns('b.txt', 'b')}`,
      ['--no-autostart'],
    );
    const c = await connect(server.url);
    expect(
      c.handshake.eventHistory.some((e) => e.type === 'server.idle' && e.data.reason === 'startup'),
    ).toBe(true);
    // server.ready tells the plan (so clients can list codons not started yet) and the proxy state.
    expect(c.serverInfo.plan).toEqual({
      name: 'test',
      codons: [
        { codonId: 'one', codonName: 'Codon one', index: 0, agent: 'builtin' },
        { codonId: 'two', codonName: 'Codon two', index: 1, agent: 'builtin' },
      ],
    });
    expect(c.serverInfo.proxy).toEqual({ enabled: false });
    const idle1 = c.next('server.idle', () => true, 60_000);
    c.send('codon.next');
    expect((await idle1).data.reason).toBe('codon-completed');
    const idle2 = c.next('server.idle', () => true, 60_000);
    c.send('codon.next');
    expect((await idle2).data.reason).toBe('all-codons-completed');
    await expect(c.request('codon.next', undefined, 'codon.started')).rejects.toMatchObject({
      code: 'NO_NEXT_CODON',
    });
  });

  it('answers commands that make no sense now with a code and changes nothing', async () => {
    const { server } = await serve(simplePlan(['one']), `turns:\n${writeTurns('a.txt', 'a')}`, [
      '--no-autostart',
    ]);
    const c = await connect(server.url);
    await expect(c.request('codon.start', { codonId: 'nope' }, 'codon.started')).rejects.toMatchObject({
      code: 'UNKNOWN_CODON',
      message: expect.stringMatching(/its codons: one/),
    });
    await expect(c.request('codon.skip', undefined, 'codon.completed')).rejects.toMatchObject({
      code: 'NO_CODON_RUNNING',
    });
    await expect(c.request('codon.forceStop', { reason: 'x' }, 'codon.completed')).rejects.toMatchObject({
      code: 'NO_CODON_RUNNING',
    });
    await expect(c.request('codon.redo', undefined, 'codon.started')).rejects.toMatchObject({
      code: 'NOTHING_TO_REDO',
    });
    const before = (await c.syncHistory()).length;
    const started = c.next('codon.started');
    c.send('codon.start', { codonId: 'one' });
    await started;
    // While it runs, another start is refused (it may finish first; then nothing is running).
    const during = await c
      .request('codon.next', undefined, 'codon.started')
      .catch((e: { code?: string }) => e.code);
    expect(['CODON_RUNNING', 'NO_NEXT_CODON']).toContain(during);
    expect(before).toBeGreaterThan(0);
  });

  it('refuses an invalid plan with every problem and exit code 2', async () => {
    const d = dir();
    const files = writePlanAndScript(
      d,
      'name: bad\ncodons:\n  - id: a\n  - id: a\n    prompt: x\n',
      'turns: []\n',
    );
    const proc = runCli(['run', files.plan, '--headless', '--execution', join(d, 'exec')]);
    expect((await proc.exited).code).toBe(2);
    expect(proc.stderr()).toMatch(/codons\[0\]/);
    expect(proc.stderr()).toMatch(/codons\[1\]\.id/);
    expect(proc.stdout()).toBe('');
  });
});
