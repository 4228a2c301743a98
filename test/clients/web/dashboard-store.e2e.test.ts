import fc from 'fast-check';
import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { beforeEach, describe, expect, it } from 'vitest';
import { pendingCallIndex } from '../../../src/clients/model/store/activity.ts';
import { orderedCodons } from '../../../src/clients/model/store/codons.ts';
import { CostView } from '../../../src/clients/web/components/cost-chart.tsx';
import { Overview } from '../../../src/clients/web/components/overview.tsx';
import { ACTIVITY_KINDS, filterRows, MAX_ROWS } from '../../../src/clients/web/model/activity-rows.ts';
import { initialDashboard, reduceDashboard } from '../../../src/clients/web/model/dashboard.ts';
import { fileTree } from '../../../src/clients/web/model/file-tree.ts';
import { diffPoints, lineageOf, type RunEntry } from '../../../src/clients/web/model/lineage.ts';
import type { CheckpointInfo, ServerEvent } from '../../../src/core/protocol/index.ts';
import {
  codonEnd,
  codonStart,
  RUN,
  resetCost,
  runStarted,
  toolCall,
  toolDone,
  transition,
} from '../model/helpers/events.ts';
import { ev } from '../model/helpers/fake-client.ts';

const events = (list: ServerEvent[], state = initialDashboard('ws://x')) =>
  reduceDashboard(state, { kind: 'events', events: list });

beforeEach(() => resetCost());

describe('the dashboard store', () => {
  it('folds codons with the TUI reducer and keeps every activity row, tool results on their calls', () => {
    const s = events([
      ...runStarted('ribosome/run-1'),
      ...codonStart('one', 0),
      ev('assistant.action', { codonId: 'one', action: 'thinking', content: 'let me see' }),
      toolCall('one', 'Write', 'hello.txt', { file_path: 'hello.txt', content: 'hi' }),
      toolDone('one', 'Write', 'wrote 2 bytes'),
      ev('file.updated', { path: 'src/hello.txt', filename: 'hello.txt', content: 'hi', action: 'created' }),
      ev('error', { message: 'slow down', fatal: false, severity: 'warning', codon: 'one' }),
      ...codonEnd('one', 'completed', 0.25, 1_000),
    ]);
    expect(orderedCodons(s.run.codons).map((c) => [c.codonId, c.status, c.cost])).toEqual([
      ['one', 'completed', 0.25],
    ]);
    expect(s.run.run.branch).toBe('ribosome/run-1');
    // The TUI's own capped list is off: the page keeps its own.
    expect(s.run.activity).toEqual([]);
    const kinds = s.log.rows.map((r) => r.kind);
    expect(kinds).toEqual(['codon', 'thinking', 'tool', 'file', 'error', 'codon']);
    const tool = s.log.rows.at(2);
    expect(tool).toMatchObject({ toolName: 'Write', codonId: 'one', result: { text: 'wrote 2 bytes' } });
    expect(JSON.parse(tool?.detail ?? '')).toEqual({ file_path: 'hello.txt', content: 'hi' });
    // A file change belongs to the codon running then; an error says its severity and what to do.
    expect(s.log.rows.at(3)).toMatchObject({ codonId: 'one', text: 'created src/hello.txt' });
    expect(s.log.rows.at(4)).toMatchObject({ severity: 'warning', action: 'log and continue' });
    expect(s.files.get('src/hello.txt')?.content).toBe('hi');
  });

  it('folds 100 000 events, and a history replaces what was folded before', () => {
    const many: ServerEvent[] = [...runStarted(), ...codonStart('one', 0)];
    for (let i = 0; i < 100_000; i++)
      many.push(ev('assistant.action', { codonId: 'one', action: 'message', content: `line ${i}` }));
    const first = events(many);
    expect(first.log.rows.length).toBe(100_001);
    expect(first.log.rows.at(-1)?.text).toBe('line 99999');
    const again = reduceDashboard(first, { kind: 'history', events: many.slice(0, 10) });
    expect(again.log.rows.length).toBe(7); // the codon line and six messages
    expect(again.eventCount).toBe(10);
  });

  it('keeps the newest MAX_ROWS rows and counts the earlier ones; a streamed history folds to the same', () => {
    const many: ServerEvent[] = [...codonStart('one', 0)];
    for (let i = 0; i < MAX_ROWS + 10; i++)
      many.push(ev('assistant.action', { codonId: 'one', action: 'message', content: `line ${i}` }));
    const whole = reduceDashboard(initialDashboard('ws://x'), { kind: 'history', events: many });
    expect(whole.log.rows.length).toBe(MAX_ROWS);
    expect(whole.log.dropped).toBe(11); // the codon line and the first ten messages
    expect(whole.log.rows.at(-1)?.text).toBe(`line ${MAX_ROWS + 9}`);
    expect(whole.run.codons.one?.messages).toBe(MAX_ROWS + 10);
    let streamed = reduceDashboard(initialDashboard('ws://x'), { kind: 'historyBegin' });
    for (let i = 0; i < many.length; i += 50_000)
      streamed = reduceDashboard(streamed, { kind: 'historyEvents', events: many.slice(i, i + 50_000) });
    expect(streamed.log.rows.length).toBe(0);
    streamed = reduceDashboard(streamed, { kind: 'historyEnd' });
    expect(streamed.log).toEqual(whole.log);
    expect(streamed.log.rows.toArray()).toEqual(whole.log.rows.toArray());
    expect(streamed.eventCount).toBe(many.length);
    expect(streamed.run.codons).toEqual(whole.run.codons);
  });

  it('pairs each tool result with the call the rule names, however the events are batched', () => {
    // The rule, on a plain list: the oldest call of the same tool in the same codon still waiting,
    // among the last 200 rows (pendingCallIndex, as the terminal UI applies it).
    const step = fc.record({
      result: fc.boolean(),
      codon: fc.constantFrom('one', 'two'),
      tool: fc.constantFrom('Read', 'Bash'),
      gap: fc.integer({ min: 0, max: 150 }),
    });
    fc.assert(
      fc.property(fc.array(step, { maxLength: 60 }), fc.integer({ min: 1, max: 40 }), (steps, batch) => {
        const list: ServerEvent[] = [];
        for (const [i, x] of steps.entries()) {
          for (let g = 0; g < x.gap; g++) list.push(ev('info', { message: `gap ${i}.${g}` }));
          list.push(
            x.result ? toolDone(x.codon, x.tool, `result ${i}`) : toolCall(x.codon, x.tool, `call ${i}`, {}),
          );
        }
        type Row = { kind: string; codonId?: string; toolName?: string; text: string; result?: string };
        const model: Row[] = [];
        for (const e of list) {
          if (e.type === 'info') model.push({ kind: 'note', text: e.data.message });
          else if (e.type === 'assistant.action')
            model.push({
              kind: 'tool',
              codonId: e.data.codonId,
              toolName: e.data.toolName ?? '',
              text: e.data.content,
            });
          else if (e.type === 'tool.result') {
            const at = pendingCallIndex(model, e);
            const call = model[at];
            if (call) model[at] = { ...call, result: e.data.result };
            else model.push({ kind: 'tool', text: 'alone', result: e.data.result });
          }
        }
        let state = initialDashboard('ws://x');
        for (let i = 0; i < list.length; i += batch) state = events(list.slice(i, i + batch), state);
        const rows = state.log.rows.toArray();
        expect(rows.map((r) => r.result?.text)).toEqual(model.map((r) => r.result));
        expect(
          rows.map((r) => (r.text.endsWith('(call not seen)') ? 'alone' : r.text.replace(/^ℹ /, ''))),
        ).toEqual(model.map((r) => r.text));
      }),
      { numRuns: 150 },
    );
  });

  it('filters rows by codon and kind', () => {
    const s = events([
      ...codonStart('one', 0),
      ev('assistant.action', { codonId: 'one', action: 'message', content: 'a' }),
      ...codonStart('two', 1),
      ev('assistant.action', { codonId: 'two', action: 'message', content: 'b' }),
      ev('sentinel.output', {
        sentinelId: 'watch',
        codonId: 'two',
        triggerNumber: 1,
        outputType: 'structured',
        content: { ok: true },
        cost: 0.01,
        tokens: { input: 10, output: 5 },
        eventCount: 3,
      }),
    ]);
    expect(filterRows(s.log.rows, {})).toBe(s.log.rows);
    expect(
      filterRows(s.log.rows, { codonId: 'two', kinds: new Set(['message']) }).map((r) => r.text),
    ).toEqual(['b']);
    const sentinel = filterRows(s.log.rows, { kinds: new Set(['sentinel']) });
    expect(sentinel).toMatchObject([{ sentinelId: 'watch', codonId: 'two' }]);
    expect(JSON.parse(sentinel.at(0)?.detail ?? '')).toEqual({ ok: true });
    expect(filterRows(s.log.rows, { kinds: new Set(ACTIVITY_KINDS) })).toBe(s.log.rows);
  });

  it("lists a sentinel's actions, and the failure of one, as sentinel rows (trial 17 L4)", () => {
    const s = events([
      ...codonStart('two', 0),
      ev('sentinel.action', {
        sentinelId: 'twoB',
        codonId: 'two',
        triggerNumber: 1,
        action: 'rollback',
        dryRun: false,
        reason: 'regex ^X',
      }),
      ev('sentinel.error', {
        sentinelId: 'twoB',
        codonId: 'two',
        errorType: 'action-failed',
        message: 'rollback failed: codon two is already being stopped',
        retriable: false,
        consecutiveFailureCount: 0,
      }),
    ]);
    const rows = filterRows(s.log.rows, { kinds: new Set(['sentinel']) });
    expect(Array.from({ length: rows.length }, (_, i) => [rows.at(i)?.text, rows.at(i)?.tone])).toEqual([
      ['⚑ [twoB] rollback two (regex ^X)', 'warn'],
      ['twoB action-failed: rollback failed: codon two is already being stopped', 'bad'],
    ]);
  });

  it('shows the bidirectional controls that would reorder a row as stand-ins (trial 17b L4)', () => {
    const bidi = '\u202a\u202e\u2066\u2069\u200e\u200f\u061c';
    const s = events([
      ...codonStart('two', 0),
      ev('codon.message', {
        codonId: 'two',
        text: `a${bidi}evil\u0007`,
        from: { kind: 'client', clientId: 'c9' },
        delivery: 'live',
      }),
      ev('assistant.action', { codonId: 'two', action: 'message', content: `ok\u202e done` }),
    ]);
    const texts = Array.from({ length: s.log.rows.length }, (_, i) => s.log.rows.at(i)?.text ?? '');
    expect(texts).toContain(
      'client c9 → agent: a<U+202A><U+202E><U+2066><U+2069><U+200E><U+200F><U+061C>evil␇',
    );
    expect(texts.some((t) => t.includes('ok<U+202E> done'))).toBe(true);
    expect(texts.join('')).not.toMatch(/[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/);
  });

  it('lists the runs of the execution with the run each rollback started from', () => {
    const s = events([
      ...runStarted(),
      transition('InitialCheckpointSet', { sha: 'abc123' }),
      transition('RunCompleted', { endedAt: '2025-01-01T00:00:00.000Z' }),
      ev('state.transition', {
        transitionType: 'RunStarted',
        transition: {
          type: 'RunStarted',
          data: {
            runId: 'run-2',
            startedAt: '2025-01-01T00:01:00.000Z',
            reason: 'rollback',
            fromRunId: 'run-1-abcd',
          },
        },
        resultingState: { currentRunId: 'run-2', runCount: 2, totalCost: 0, currentRunCost: 0 },
      }),
    ]);
    expect(s.runs.map((r) => [r.runId, r.status, r.reason, r.fromRunId])).toEqual([
      ['run-1-abcd', 'completed', 'start', undefined],
      ['run-2', 'running', 'rollback', 'run-1-abcd'],
    ]);
    expect(s.runs[0]?.initialSha).toBe('abc123');
  });

  it("shows each codon's agent, and a finished run still serving as plan done, not running (trial 18b L7)", () => {
    const overview = (state: ReturnType<typeof events>) =>
      renderToStaticMarkup(
        createElement(Overview, { state, selected: undefined, onSelect: () => {}, now: Date.now() }),
      );
    const started = ev('codon.started', {
      codonId: 'test',
      codonName: 'Add a test',
      sessionId: 's',
      startTime: new Date().toISOString(),
      agent: 'codex',
    });
    const running = events([...runStarted(), ...codonStart('test', 0), started]);
    expect(overview(running)).toMatch(/data-testid="codon-agent">codex</);
    expect(overview(running)).toMatch(/data-testid="run-status">running</);
    const between = events(
      [...codonEnd('test', 'completed'), ev('server.idle', { reason: 'codon-completed', message: 'x' })],
      running,
    );
    expect(overview(between)).toMatch(/data-testid="run-status">idle</);
    // A run held by an approval gate says so, not idle (trial B of issue 35).
    const approvalWait = {
      codonId: 'test',
      codonName: 'Add a test',
      since: new Date().toISOString(),
      approvers: 'control-clients' as const,
    };
    const held = events(
      [
        ev('approval.waiting', {
          ...approvalWait,
          message: 'waiting for approval of codon test (Add a test)',
        }),
        ev('server.idle', {
          reason: 'codon-completed',
          message: 'waiting for approval',
          heldBy: 'approval',
          approval: approvalWait,
        }),
      ],
      between,
    );
    expect(overview(held)).toMatch(/data-testid="run-status">waiting for approval</);
    const done = events(
      [ev('server.idle', { reason: 'all-codons-completed', message: 'all 1 codons have run' })],
      between,
    );
    expect(overview(done)).toMatch(/data-testid="run-status">plan done</);
    // Once the run's end is journaled (the server stopped), its recorded ending.
    const ended = events([transition('RunCompleted', { endedAt: '2025-01-01T00:00:00.000Z' })], done);
    expect(overview(ended)).toMatch(/data-testid="run-status">completed</);
  });

  it('builds the file tree from file.updated, folders first', () => {
    const s = events([
      ev('file.updated', { path: 'b.txt', filename: 'b.txt', content: '1', action: 'created' }),
      ev('file.updated', { path: 'src/a.ts', filename: 'a.ts', content: '2', action: 'created' }),
      ev('file.updated', { path: 'src/a.ts', filename: 'a.ts', content: '3', action: 'modified' }),
    ]);
    const tree = fileTree(s.files);
    expect(tree.children.map((c) => c.name)).toEqual(['src', 'b.txt']);
    expect(tree.children[0]?.children[0]?.file).toMatchObject({ content: '3', action: 'modified' });
  });

  it('drops a deleted file from the tree, as a rollback restoring an earlier tree deletes it (re-trial find)', () => {
    const s = events([
      ev('file.updated', { path: 'hello.txt', filename: 'hello.txt', content: 'hi', action: 'created' }),
      ev('file.updated', { path: 'README.md', filename: 'README.md', content: '# r', action: 'created' }),
      ev('file.updated', { path: 'hello.txt', filename: 'hello.txt', content: '', action: 'deleted' }),
    ]);
    expect([...s.files.keys()]).toEqual(['README.md']);
    expect(fileTree(s.files).children.map((c) => c.name)).toEqual(['README.md']);
  });

  it('leaves the data directory link (ribosome-data) out of the file tree and the activity', () => {
    const s = events([
      ev('file.updated', {
        path: 'ribosome-data',
        filename: 'ribosome-data',
        content: '',
        action: 'created',
      }),
      ev('file.updated', {
        path: 'ribosome-data/in.csv',
        filename: 'in.csv',
        content: '1',
        action: 'created',
      }),
      ev('file.updated', {
        path: 'ribosome-data.txt',
        filename: 'ribosome-data.txt',
        content: '2',
        action: 'created',
      }),
    ]);
    expect([...s.files.keys()]).toEqual(['ribosome-data.txt']);
    expect(s.log.rows.filter((r) => r.kind === 'file').map((r) => r.text)).toEqual([
      'created ribosome-data.txt',
    ]);
  });
});

describe('the changes view after a rollback', () => {
  const cp = (codonId: string, sha: string, t: number): CheckpointInfo => ({
    codonId,
    codonName: codonId,
    checkpointType: 'completed',
    sha,
    status: 'completed',
    timestamp: new Date(Date.UTC(2025, 0, 1, 0, 0, t)).toISOString(),
  });
  const at = (t: number) => new Date(Date.UTC(2025, 0, 1, 0, 0, t)).toISOString();
  const runs: RunEntry[] = [
    { runId: 'r1', startedAt: at(0), initialSha: 'i1', status: 'completed' },
    { runId: 'r2', startedAt: at(10), fromRunId: 'r1', initialSha: 'i2', status: 'running' },
    { runId: 'other', startedAt: at(20), status: 'running' },
  ];

  it("offers the lineage's checkpoints when the new run has none of its own", () => {
    expect(lineageOf(runs, 'r2').map((r) => r.runId)).toEqual(['r2', 'r1']);
    const points = diffPoints(runs, 'r2', [], {
      r1: [cp('one', 'a1', 1), cp('two', 'a2', 2)],
      other: [cp('x', 'o', 3)],
    });
    expect(points.map((p) => [p.sha, p.runId])).toEqual([
      ['i1', 'r1'],
      ['a1', 'r1'],
      ['a2', 'r1'],
      ['i2', 'r2'],
    ]);
  });

  it("keeps each run's checkpoint.list answer, and the run's store only its own", () => {
    const list = (runId: string, checkpoints: CheckpointInfo[]) =>
      ev('checkpoint.list', { runId, currentBranch: 'run/r2', checkpoints });
    const s = events([
      ...runStarted(),
      list('earlier', [cp('one', 'a1', 1)]),
      list(RUN, [cp('two', 'b1', 2)]),
    ]);
    expect(Object.keys(s.listed)).toEqual(['earlier', RUN]);
    expect(s.run.checkpoints.listed?.runId).toBe(RUN);
    // An earlier run's list after the run's own leaves the run's as it was.
    const later = events([list('earlier', [cp('one', 'a1', 1)])], s);
    expect(later.run.checkpoints.listed?.checkpoints.map((c) => c.sha)).toEqual(['b1']);
  });
});

describe('estimated costs on the page (trial 18 M1)', () => {
  it('marks them ~ in the overview, timeline, activity and cost chart, with the legend', () => {
    const s = events([
      ...runStarted(),
      ...codonStart('cx', 0),
      ev('token.usage', {
        codonId: 'cx',
        inputTokens: 30_132,
        outputTokens: 34,
        cacheCreationTokens: 0,
        cacheReadTokens: 0,
        totalCost: 0.0604,
        costEstimated: true,
      }),
      ev('state.transition', {
        transitionType: 'CostsIncremented',
        runId: RUN,
        codonId: 'cx',
        transition: {
          type: 'CostsIncremented',
          data: { runId: RUN, codonId: 'cx', amount: 0.0604, source: 'agent' },
        },
        resultingState: {
          currentRunId: RUN,
          runCount: 1,
          totalCost: 0.0604,
          currentRunCost: 0.0604,
          totalCostEstimated: true,
          currentRunCostEstimated: true,
        },
      }),
      ev('codon.completed', {
        codonId: 'cx',
        success: true,
        cost: 0.0604,
        costEstimated: true,
        duration: 500,
        exitStatus: { type: 'success' },
      }),
    ]);
    expect(s.log.rows.at(-1)?.text).toBe('■ cx completed in 500 ms, ~$0.0604');
    expect(s.series.estimated).toEqual({ cx: true });
    const overview = renderToStaticMarkup(
      createElement(Overview, { state: s, selected: undefined, onSelect: () => {}, now: Date.now() }),
    );
    expect(overview).toMatch(/data-testid="run-cost">~\$0\.0604</);
    expect(overview).toMatch(/data-testid="codon-cost">~\$0\.0604</);
    expect(overview).toContain('~ marks an estimate');
    const chart = renderToStaticMarkup(createElement(CostView, { series: s.series }));
    expect(chart).toContain('agent ~$0.0604');
    expect(chart).toContain('~ marks an estimate');
  });
});
