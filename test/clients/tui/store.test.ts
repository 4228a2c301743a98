import { beforeEach, describe, expect, it } from 'vitest';
import { budgetLine } from '../../../src/clients/model/store/budget.ts';
import { orderedCodons, runningCodon } from '../../../src/clients/model/store/codons.ts';
import { commandLine } from '../../../src/clients/model/store/command-answers.ts';
import { foldEvents } from '../../../src/clients/model/store/fold-event.ts';
import { messageLine } from '../../../src/clients/model/store/messages.ts';
import { reduceRun } from '../../../src/clients/model/store/reduce.ts';
import { initialRunState, MAX_ACTIVITY, type RunState } from '../../../src/clients/model/store/run-state.ts';
import {
  nextCodonId,
  passedOverCodons,
  refusedMessage,
  rollbackTargets,
  runCheckpoints,
  runWord,
  statusNotice,
} from '../../../src/clients/model/store/selectors.ts';
import { currentRunCost, describeCost, totalTokens } from '../../../src/clients/model/store/totals.ts';
import { codonDetailLines } from '../../../src/clients/tui/view/content/codon-detail-lines.ts';
import { codonLines } from '../../../src/clients/tui/view/content/codon-lines.ts';
import { helpLines } from '../../../src/clients/tui/view/content/help-lines.ts';
import { helpLine } from '../../../src/clients/tui/view/keymap.ts';
import type { ServerEvent } from '../../../src/core/protocol/index.ts';
import {
  codonEnd,
  codonStart,
  RUN,
  resetCost,
  rollback,
  runStarted,
  serverTotals,
  toolCall,
  toolDone,
  transition,
  usage,
} from '../model/helpers/events.ts';
import { ev } from '../model/helpers/fake-client.ts';

const fold = (events: ServerEvent[], state: RunState = initialRunState('ws://x')) =>
  foldEvents(state, events);

beforeEach(() => resetCost());

describe('codon list', () => {
  it('fills in from codon and transition events, in plan order, with the running codon', () => {
    const s = fold([
      ...runStarted(),
      ...codonStart('two', 1),
      ...codonEnd('two', 'completed', 0.5, 1_000),
      ...codonStart('one', 0),
    ]);
    expect(orderedCodons(s.codons).map((c) => [c.codonId, c.status])).toEqual([
      ['one', 'running'],
      ['two', 'completed'],
    ]);
    expect(runningCodon(s.codons)?.codonId).toBe('one');
    expect(s.codons.two).toMatchObject({ cost: 0.5, duration: 1_000, attempts: 1, codonName: 'Codon two' });
  });

  it.each(['constructor', 'toString', 'valueOf'])(
    'shows a codon named like an Object.prototype key (%s) as any other',
    (id) => {
      const s = fold([...runStarted(), ...codonStart(id, 0), ...codonEnd(id, 'completed', 0.5, 1_000)]);
      expect(orderedCodons(s.codons).map((c) => [c.codonId, c.status, c.attempts])).toEqual([
        [id, 'completed', 1],
      ]);
    },
  );

  it('keeps skipped and stopped though codon.completed says success is false', () => {
    const s = fold([
      ...codonStart('a', 0),
      ...codonEnd('a', 'skipped'),
      ...codonStart('b', 1),
      ...codonEnd('b', 'stopped'),
    ]);
    expect(s.codons.a?.status).toBe('skipped');
    expect(s.codons.b?.status).toBe('stopped');
  });

  it('counts attempts on redo and resets the attempt cost', () => {
    const s = fold([...codonStart('a', 0), ...codonEnd('a', 'failed', 0.2), ...codonStart('a', 0)]);
    expect(s.codons.a).toMatchObject({ status: 'running', attempts: 2, cost: 0 });
  });

  it('works from codon.started/completed alone (no transitions)', () => {
    const s = fold([
      ev('codon.started', {
        codonId: 'x',
        codonName: 'X',
        sessionId: 's',
        startTime: new Date().toISOString(),
      }),
    ]);
    expect(s.codons.x?.status).toBe('running');
    const done = fold(
      [
        ev('codon.completed', {
          codonId: 'x',
          success: false,
          cost: 1,
          duration: 5,
          exitStatus: { type: 'error', code: 1 },
        }),
      ],
      s,
    );
    expect(done.codons.x).toMatchObject({ status: 'failed', cost: 1, duration: 5 });
  });

  it('keeps the agent codon.started names (a plan may mix them): the notice and the codon details say it', () => {
    const started = ev('codon.started', {
      codonId: 'test',
      codonName: 'Add a test',
      sessionId: 's',
      startTime: new Date().toISOString(),
      agent: 'codex',
    });
    const s = fold([...codonStart('test', 2), started]);
    expect(s.codons.test?.agent).toBe('codex');
    expect(s.notice).toEqual({ text: 'running test: Add a test (codex)', tone: 'accent' });
    // A redo's transition alone keeps it.
    const again = fold([...codonEnd('test', 'failed'), ...codonStart('test', 2)], s);
    expect(again.codons.test?.agent).toBe('codex');
    const details = codonDetailLines(s.codons.test, 'test', {
      plan: undefined,
      readonly: true,
      width: 80,
      now: 0,
    });
    expect(details.map((l) => l.text)).toContain('  agent        codex');
    // In a plan that mixes agents, the codon list names each at the end of the codon's label, the name
    // cut before it (trial 18b L7); with one agent for all, it names none.
    const alone = codonLines(s.codons, s.run.idle, 60, 0, true).lines[0]?.text ?? '';
    expect(alone).toMatch(/^▶ test Add a test +running/);
    const codons = {
      ...s.codons,
      first: { ...s.codons.test!, codonId: 'first', codonName: 'First', agent: 'builtin' },
    };
    const line = (width: number) =>
      codonLines(codons, s.run.idle, width, 0, true).lines.find((l) => l.text.includes('test'))?.text ?? '';
    expect(line(60)).toMatch(/^▶ test Add a test +codex +running/);
    expect(line(46)).toMatch(/^▶ test Add a … codex running/);
  });

  it('takes state.snapshot as the truth for the codons it lists', () => {
    const s = fold([
      ev('state.snapshot', {
        currentCodon: { codonId: 'b', codonName: 'B', status: 'running', cost: 0.1 },
        completedCodons: [{ codonId: 'a', codonName: 'A', status: 'completed', cost: 0.3, duration: 900 }],
        fileTree: [],
        totalCost: 0.4,
        totalTime: 1_500,
        isRollingBack: false,
      }),
    ]);
    expect(orderedCodons(s.codons).map((c) => `${c.codonId}:${c.status}`)).toEqual([
      'a:completed',
      'b:running',
    ]);
    expect(s.run).toMatchObject({ totalCost: 0.4, workTime: 1_500 });
  });

  it('tracks the running cost from CostsIncremented, then the final cost', () => {
    const s = fold([...codonStart('a', 0), ...usage('a', 100, 10, 0.01), ...usage('a', 300, 30, 0.02)]);
    expect(s.codons.a?.cost).toBeCloseTo(0.03);
    const final = fold([transition('CodonFinalCostSet', { codonId: 'a', cost: 0.05 })], s);
    expect(final.codons.a?.cost).toBe(0.05);
  });

  it('fails codons still running when their run crashed', () => {
    const s = fold([
      ...runStarted(),
      ...codonStart('a', 0),
      transition('RunCrashed', { detectedAt: new Date().toISOString() }),
    ]);
    expect(s.codons.a).toMatchObject({ status: 'failed', note: 'the server stopped while it ran' });
    expect(s.run.runStatus).toBe('crashed');
  });

  it('learns codons of earlier runs from checkpoint.list', () => {
    const s = fold([
      ev('checkpoint.list', {
        runId: RUN,
        currentBranch: 'ribosome/run-1',
        checkpoints: [
          {
            codonId: 'old',
            codonName: 'Old',
            checkpointType: 'completed',
            sha: 'abc123',
            status: 'completed',
            timestamp: '2025-01-01T00:00:00Z',
          },
        ],
      }),
    ]);
    expect(s.codons.old?.status).toBe('completed');
    expect(s.run.branch).toBe('ribosome/run-1');
  });
});

describe('activity', () => {
  it('pairs each tool result with the oldest open call of that tool in that codon', () => {
    const s = fold([
      ...codonStart('a', 0),
      ev('assistant.action', { codonId: 'a', action: 'thinking', content: 'hmm' }),
      ev('assistant.action', { codonId: 'a', action: 'message', content: 'Reading.' }),
      toolCall('a', 'Read', 'one.txt', { file_path: 'one.txt' }),
      toolCall('a', 'Read', 'two.txt', { file_path: 'two.txt' }),
      toolDone('a', 'Read', 'first'),
      ev('file.updated', { path: 'agentRoot/x.txt', filename: 'x.txt', content: 'hi', action: 'created' }),
    ]);
    const tools = s.activity.filter((e) => e.kind === 'tool');
    expect(tools.map((t) => (t.kind === 'tool' ? [t.summary, t.result?.text] : []))).toEqual([
      ['one.txt', 'first'],
      ['two.txt', undefined],
    ]);
    expect(s.activity.map((e) => e.kind)).toEqual(['codon', 'thinking', 'message', 'tool', 'tool', 'file']);
  });

  it('keeps a result whose call it never saw', () => {
    const s = fold([toolDone('a', 'Bash', 'out')]);
    expect(s.activity[0]).toMatchObject({
      kind: 'tool',
      summary: '(call not seen)',
      result: { text: 'out' },
    });
  });

  it('keeps the newest entries only', () => {
    const events = Array.from({ length: MAX_ACTIVITY + 50 }, (_, i) => ev('info', { message: `line ${i}` }));
    const s = fold(events);
    expect(s.activity).toHaveLength(MAX_ACTIVITY);
    expect(s.activity.at(-1)).toMatchObject({ text: `ℹ line ${MAX_ACTIVITY + 49}` });
    expect(s.activityDropped).toBe(50);
  });

  /** A long codon: per step a message, a tool call and its result, then a note. */
  const longRun = (steps: number): ServerEvent[] => [
    ...codonStart('long', 0),
    ...Array.from({ length: steps }, (_, i) => [
      ev('assistant.action', { codonId: 'long', action: 'message', content: `step ${i}` }),
      toolCall('long', 'Read', `src/f${i}.ts`, { file_path: `src/f${i}.ts` }),
      toolDone('long', 'Read', `content ${i}`),
      ev('info', { message: `checked ${i}` }),
    ]).flat(),
  ];

  it('after many events keeps the last entries, counts the earlier ones, and the codon still tallies all', () => {
    const steps = 3 * MAX_ACTIVITY;
    const s = fold(longRun(steps));
    // Per step three entries (the result joins its call), plus the codon's start line.
    expect(s.activity).toHaveLength(MAX_ACTIVITY);
    expect(s.activityDropped).toBe(3 * steps + 1 - MAX_ACTIVITY);
    expect(s.activity.at(-1)).toMatchObject({ text: `ℹ checked ${steps - 1}` });
    expect(s.activity.at(-2)).toMatchObject({
      kind: 'tool',
      summary: `src/f${steps - 1}.ts`,
      result: { text: `content ${steps - 1}` },
    });
    expect(s.codons.long).toMatchObject({ status: 'running', messages: steps, toolCalls: steps });
  });

  it('folds a history streamed in batches to what one whole history gives', () => {
    const events = longRun(2 * MAX_ACTIVITY);
    const whole = reduceRun(initialRunState('ws://x'), { kind: 'history', events });
    let streamed = reduceRun(initialRunState('ws://x'), { kind: 'historyBegin' });
    // Until the end, the screen's state is what it was; the history grows beside it.
    for (let i = 0; i < events.length; i += 333) {
      streamed = reduceRun(streamed, { kind: 'historyEvents', events: events.slice(i, i + 333) });
      expect(streamed.activity).toHaveLength(0);
    }
    streamed = reduceRun(streamed, { kind: 'historyEnd' });
    expect(streamed.incoming).toBeUndefined();
    expect(streamed.activity).toEqual(whole.activity);
    expect(streamed.activityDropped).toBe(whole.activityDropped);
    expect(streamed.codons).toEqual(whole.codons);
  });

  it('keeps a command sent while the history streamed, and drops the history when the sync fails', () => {
    let s = reduceRun(initialRunState('ws://x'), { kind: 'historyBegin' });
    s = reduceRun(s, { kind: 'historyEvents', events: codonStart('a', 0) });
    s = reduceRun(s, { kind: 'commandSent', id: 'c1', type: 'codon.next', label: 'next' });
    const ended = reduceRun(s, { kind: 'historyEnd' });
    expect(ended.commands.map((c) => c.id)).toEqual(['c1']);
    expect(ended.codons.a?.status).toBe('running');
    const failed = reduceRun(s, { kind: 'syncFailed', message: 'gone' });
    expect(failed.incoming).toBeUndefined();
    expect(failed.codons.a).toBeUndefined();
  });
});

describe('estimated costs (trial 18 M1)', () => {
  /** A Codex codon's priced response: token.usage costEstimated, the cost, the server's marked totals. */
  const priced = (codonId: string, cost: number, runCost: number): ServerEvent[] => [
    ev('token.usage', {
      codonId,
      inputTokens: 30_132,
      outputTokens: 34,
      cacheCreationTokens: 0,
      cacheReadTokens: 0,
      totalCost: cost,
      costEstimated: true,
    }),
    ev('state.transition', {
      transitionType: 'CostsIncremented',
      runId: RUN,
      codonId,
      transition: { type: 'CostsIncremented', data: { runId: RUN, codonId, amount: cost, source: 'agent' } },
      resultingState: {
        currentRunId: RUN,
        runCount: 1,
        totalCost: runCost,
        currentRunCost: runCost,
        totalCostEstimated: true,
        currentRunCostEstimated: true,
      },
    }),
  ];

  it('marks the codon, its line, details and end, and the header total ~; a codon that reports its cost is not', () => {
    const s = fold([
      ...runStarted(),
      ...codonStart('cc', 0),
      ...usage('cc', 10, 1, 0.01),
      ...codonEnd('cc', 'completed', 0.01),
      ...codonStart('cx', 1),
      ...priced('cx', 0.0604, 0.0704),
    ]);
    expect(s.codons.cc?.costEstimated).toBeFalsy();
    expect(s.codons.cx).toMatchObject({ cost: 0.0604, costEstimated: true });
    expect(describeCost(s.run)).toBe('~$0.0704');
    const lines = codonLines(s.codons, s.run.idle, 60, Date.now(), true).lines.map((l) => l.text);
    expect(lines.find((l) => l.includes(' cc '))).toContain(' $0.0100 ');
    expect(lines.find((l) => l.includes(' cx '))).toContain(' ~$0.0604 ');
    const details = codonDetailLines(s.codons.cx, 'cx', {
      plan: undefined,
      readonly: true,
      width: 100,
      now: 0,
    });
    expect(details.map((l) => l.text)).toContainEqual(
      expect.stringMatching(/cost +~\$0\.0604 \(estimated: /),
    );
    expect(helpLines(true, 'ws://x').map((l) => l.text)).toContainEqual(
      expect.stringContaining('~ marks an estimate'),
    );
    const ended = fold(
      [
        ev('codon.completed', {
          codonId: 'cx',
          success: true,
          cost: 0.0604,
          costEstimated: true,
          duration: 500,
          exitStatus: { type: 'success' },
        }),
      ],
      s,
    );
    expect(ended.activity.at(-1)?.kind === 'codon' && ended.activity.at(-1)).toMatchObject({
      text: '■ cx completed in 500ms, ~$0.0604',
    });
    // A new attempt costs nothing yet: no mark until it spends.
    const again = fold(codonStart('cx', 1), ended);
    expect(again.codons.cx?.costEstimated).toBeFalsy();
  });

  it('takes the marks of a state.snapshot (codons, total) and of a budget status', () => {
    const s = fold([
      ev('state.snapshot', {
        completedCodons: [
          { codonId: 'gm', codonName: 'gm', status: 'completed', cost: 0.03, costEstimated: true },
        ],
        fileTree: [],
        totalCost: 0.03,
        totalCostEstimated: true,
        totalTime: 0,
        isRollingBack: false,
        budgets: [
          {
            scope: 'plan',
            id: 'p',
            limits: { maxCostUsd: 0.1 },
            spent: { costUsd: 0.03, costEstimated: true, durationMs: 0, outputTokens: 0 },
            state: 'ok',
            ticking: false,
          },
        ],
      }),
    ]);
    expect(s.codons.gm).toMatchObject({ costEstimated: true });
    expect(describeCost(s.run)).toBe('~$0.0300');
    expect(budgetLine(s.run, 0, Date.now())?.text).toBe('budget ~$0.03 / $0.10');
  });
});

describe('totals', () => {
  it('takes run id, run count and costs from state.transition, branch from RunStarted', () => {
    const s = fold([...runStarted('ribosome/run-1'), ...codonStart('a', 0), ...usage('a', 10, 1, 0.25)]);
    expect(s.run).toMatchObject({
      runId: RUN,
      runCount: 1,
      totalCost: 0.25,
      runCost: 0.25,
      runStatus: 'running',
      branch: 'ribosome/run-1',
    });
    expect(s.run.startedAt).toBeDefined();
  });

  it('sums tokens over codons and keeps the tokens of earlier attempts', () => {
    const s = fold([
      ...codonStart('a', 0),
      ...usage('a', 100, 10),
      ...usage('a', 250, 20), // running totals of the codon: the last one counts
      ...codonEnd('a', 'failed'),
      ...codonStart('b', 1),
      ...usage('b', 50, 5),
      ...codonStart('a', 0), // a redo: a new attempt starts from zero
      ...usage('a', 30, 3),
    ]);
    expect(totalTokens(s.run)).toEqual({ input: 330, output: 28, cacheCreation: 0, cacheRead: 0 });
  });

  it('notes idle, and clears it when a codon starts', () => {
    const idle = fold([
      ev('server.idle', { reason: 'all-codons-completed', message: 'all 3 codons have run' }),
    ]);
    expect(idle.run.idle?.reason).toBe('all-codons-completed');
    expect(idle.notice).toEqual({ text: 'all 3 codons have run', tone: 'ok' });
    expect(fold(codonStart('a', 0), idle).run.idle).toBeUndefined();
  });
});

describe('sentinels', () => {
  it('groups outputs and errors by sentinel', () => {
    const s = fold([
      ev('sentinel.loaded', {
        sentinelId: 'watch',
        codonId: 'a',
        model: 'claude-haiku',
        triggerType: 'event',
        executionStrategy: 'debounce',
        conversational: false,
        source: 'file',
      }),
      ev('sentinel.output', {
        sentinelId: 'watch',
        codonId: 'a',
        triggerNumber: 1,
        outputType: 'structured',
        content: { verdict: 'ok' },
        cost: 0.001,
        tokens: { input: 10, output: 2 },
        eventCount: 3,
      }),
      ev('sentinel.error', {
        sentinelId: 'watch',
        codonId: 'a',
        errorType: 'llm-call-failed',
        message: 'HTTP 529',
        retriable: true,
        consecutiveFailureCount: 1,
      }),
      ev('sentinel.unloaded', {
        sentinelId: 'watch',
        codonId: 'a',
        reason: 'codon-complete',
        finalCost: 0.002,
        llmCallCount: 2,
      }),
    ]);
    expect(s.sentinelOrder).toEqual(['watch']);
    expect(s.sentinels.watch).toMatchObject({
      status: 'unloaded',
      unloadReason: 'codon-complete',
      model: 'claude-haiku',
      strategy: 'debounce',
      cost: 0.002,
      calls: 2,
      outputs: [{ triggerNumber: 1, text: '{"verdict":"ok"}' }],
      errors: [{ text: 'llm-call-failed: HTTP 529', retriable: true }],
    });
  });
});

describe('errors', () => {
  it('keeps severity, code and the command an error answers', () => {
    let s = reduceRun(initialRunState('ws://x'), {
      kind: 'commandSent',
      id: 'c1',
      type: 'codon.skip',
      label: 'skip',
    });
    s = fold(
      [
        ev('error', {
          message: 'nothing runs',
          fatal: false,
          severity: 'operation',
          code: 'NO_CODON_RUNNING',
          commandId: 'c1',
        }),
        ev('error', { message: 'boom', fatal: true }),
        ev('error', { message: 'codon a failed', fatal: false, codon: 'a' }),
        ev('error', { message: 'meh', fatal: false }),
      ],
      s,
    );
    expect(s.errors.map((e) => [e.severity, e.code, e.command])).toEqual([
      ['operation', 'NO_CODON_RUNNING', 'codon.skip'],
      ['fatal', undefined, undefined],
      ['codon', undefined, undefined],
      ['warning', undefined, undefined],
    ]);
    expect(s.commands[0]).toMatchObject({ status: 'failed', error: 'NO_CODON_RUNNING: nothing runs' });
  });

  it('marks a command answered when its outcome arrives: a started codon for next, its end for skip', () => {
    const send = (s: RunState, id: string, type: 'codon.next' | 'codon.skip') =>
      reduceRun(s, { kind: 'commandSent', id, type, label: type });
    let s = send(fold(runStarted()), 'n1', 'codon.next');
    s = send(s, 'n2', 'codon.next');
    s = fold(codonStart('a', 0), s);
    // One start answers one next: the oldest.
    expect(s.commands.map((c) => c.status)).toEqual(['answered', 'sent']);
    s = send(s, 's1', 'codon.skip');
    s = fold(codonEnd('a', 'skipped'), s);
    expect(s.commands.map((c) => [c.id, c.status])).toEqual([
      ['n1', 'answered'],
      ['n2', 'sent'],
      ['s1', 'answered'],
    ]);
  });
});

describe('messages of this UI (trial 17 L4, L5)', () => {
  const sent = (s: RunState, id: string, text: string) =>
    reduceRun(s, { kind: 'commandSent', id, type: 'codon.message', label: 'message the agent', text });
  const heard = (from: { kind: 'client'; clientId: string } | { kind: 'sentinel'; sentinelId: string }) =>
    ev('codon.message', { codonId: 'a', text: 'x', from, delivery: 'next-turn' });
  const connected = () =>
    reduceRun(fold([...runStarted(), ...codonStart('a', 0)]), {
      kind: 'connection',
      state: 'open',
      at: 't',
      clientId: 'me',
    });

  it("answered only by our own codon.message, in a sentence; another's or a sentinel's does not answer it", () => {
    let s = sent(connected(), 'm1', 'go on');
    expect(commandLine(s.commands[0]!)).toBe('sending the message to the agent…');
    expect(statusNotice(s)?.text).toBe('sending the message to the agent…');
    s = fold(
      [heard({ kind: 'sentinel', sentinelId: 'loop' }), heard({ kind: 'client', clientId: 'other' })],
      s,
    );
    expect(s.commands[0]?.status).toBe('sent');
    s = fold([heard({ kind: 'client', clientId: 'me' })], s);
    expect(s.commands[0]).toMatchObject({ status: 'answered' });
    expect(commandLine(s.commands[0]!)).toBe("message sent to a's agent (a new turn)");
    expect(statusNotice(s)).toEqual({ text: "message sent to a's agent (a new turn)", tone: 'ok' });
    expect(refusedMessage(s.commands)).toBeUndefined();
  });

  it('a refused message, or one that could not be sent, keeps its text for the prompt', () => {
    let s = sent(connected(), 'm1', 'go on');
    s = fold(
      [
        ev('error', {
          code: 'NO_CODON_RUNNING',
          message: 'no codon is running',
          commandId: 'm1',
          severity: 'operation',
          fatal: false,
        }),
      ],
      s,
    );
    expect(refusedMessage(s.commands)).toEqual({ id: 'm1', text: 'go on' });
    expect(statusNotice(s)?.text).toBe(
      'message not sent: NO_CODON_RUNNING: no codon is running — m opens it again',
    );
    s = reduceRun(s, {
      kind: 'commandNotSent',
      type: 'codon.message',
      label: 'message the agent',
      message: 'not connected',
      text: 'second',
      id: 'not-sent-1',
    });
    expect(refusedMessage(s.commands)).toEqual({ id: 'not-sent-1', text: 'second' });
    expect(statusNotice(s)?.text).toBe('message not sent: not connected — m opens it again');
  });
});

describe('rollback', () => {
  const request = () =>
    reduceRun(
      fold([
        ...runStarted(),
        ...codonStart('a', 0),
        ...codonEnd('a', 'completed'),
        ...codonStart('b', 1),
        ...codonEnd('b', 'completed'),
      ]),
      {
        kind: 'commandSent',
        id: 'r1',
        type: 'rollback.toLastSuccess',
        label: 'roll back',
        rollbackTarget: 'the last successful codon',
      },
    );

  it('follows started, progress, per-codon steps and completed', () => {
    const s = fold(
      [
        ev('rollback.started', {
          fromRun: RUN,
          fromCodon: 'b',
          toCodon: 'a',
          toCheckpoint: 'deadbeef1234',
          checkpointType: 'completed',
          codonsToProcess: ['b'],
        }),
        ev('rollback.progress', { currentStep: 1, totalSteps: 2, message: 'restoring files' }),
        ev('rollback.codonCheckpoint', {
          codonId: 'b',
          codonName: 'B',
          checkpoint: 'cafe0000',
          checkpointType: 'rig-setup',
          message: 'restored',
        }),
        ev('rollback.rigCleanup', {
          codonId: 'b',
          codonName: 'B',
          directories: ['rig'],
          status: 'partial',
          failedCleanups: [{ directory: 'rig/x', error: 'busy' }],
        }),
        ev('rollback.archiveRestore', { codonId: 'b', restoredFiles: ['f'], sourceDir: 'rigArchive/b' }),
      ],
      request(),
    );
    expect(s.rollback).toMatchObject({
      phase: 'running',
      target: 'the last successful codon',
      currentStep: 1,
      totalSteps: 2,
    });
    expect(s.run.isRollingBack).toBe(true);
    // Nothing is undone until the server says the rollback completed.
    expect(s.codons.b).toMatchObject({ status: 'completed', cost: 0.0123 });
    expect(s.rollback.log.map((l) => l.text)).toEqual([
      'started: b → a at deadbeef (completed), 1 codon(s) to undo',
      '1/2 restoring files',
      'b: rig-setup checkpoint cafe0000 applied. restored',
      'b: rig cleanup partial rig; failed: rig/x (busy)',
      'b: restored 1 archived file(s) from rigArchive/b',
    ]);
    const done = fold(
      [
        ev('rollback.completed', {
          fromRun: RUN,
          toRun: 'run-2',
          checkpoint: 'deadbeef',
          codonId: 'a',
          codonName: 'A',
          checkpointType: 'completed',
          autoRestart: false,
        }),
      ],
      s,
    );
    expect(done.rollback).toMatchObject({ phase: 'completed', toRun: 'run-2' });
    expect(done.notice).toEqual({ text: 'rolled back to a (completed); now run run-2', tone: 'ok' });
    expect(done.run.isRollingBack).toBe(false);
    expect(done.codons.b).toMatchObject({ status: 'pending', note: 'undone', cost: 0, attempts: 0 });
    expect(done.codons.a?.status).toBe('completed');
  });

  it('leaves the codons as they were when the rollback fails after it started', () => {
    const s = fold(
      [
        ev('rollback.started', {
          fromRun: RUN,
          fromCodon: 'b',
          toCodon: 'a',
          toCheckpoint: 'deadbeef1234',
          checkpointType: 'completed',
          codonsToProcess: ['b'],
        }),
        ev('error', {
          message: 'rollback failed: the work tree is locked',
          fatal: false,
          severity: 'operation',
          code: 'CHECKPOINT_FAILED',
          commandId: 'r1',
        }),
      ],
      request(),
    );
    expect(s.rollback).toMatchObject({ phase: 'failed', error: { code: 'CHECKPOINT_FAILED' } });
    expect(s.rollback.undoing).toBeUndefined();
    expect(s.run.isRollingBack).toBe(false);
    expect(s.codons.b).toMatchObject({ status: 'completed', cost: 0.0123, duration: 2_100 });
  });

  it('shows the server refusing the command', () => {
    const s = fold(
      [
        ev('error', {
          message: 'rollback is not available',
          fatal: false,
          severity: 'operation',
          code: 'NOT_SUPPORTED',
          commandId: 'r1',
        }),
      ],
      request(),
    );
    expect(s.rollback).toMatchObject({
      phase: 'failed',
      error: { code: 'NOT_SUPPORTED', message: 'rollback is not available' },
    });
  });

  it('offers last success, codon starts and ends, and checkpoints', () => {
    const s = fold(
      [
        transition('CheckpointCreated', {
          checkpoint: {
            codonId: 'a',
            codonName: 'A',
            checkpointType: 'completed',
            sha: '0123456789abcdef',
            status: 'completed',
            timestamp: '2025-01-01T00:00:01Z',
          },
        }),
      ],
      request(),
    );
    expect(runCheckpoints(s.checkpoints, s.run.runId).map((c) => c.sha)).toEqual(['0123456789abcdef']);
    expect(
      rollbackTargets(s.codons, s.checkpoints, s.run.runId).map((t) =>
        t.kind === 'codon' ? `${t.codonId}:${t.checkpointType}` : t.kind,
      ),
    ).toEqual(['lastSuccess', 'a:start', 'a:end', 'b:start', 'b:end', 'checkpoint']);
  });
});

describe('after a rollback', () => {
  // one, two, three completed, then rollback.toCodon {two, start}: the checkpoint before two is one's
  // completed one, so the server reports the rollback as to one (completed), undoing two and three.
  const threeDone = () =>
    fold([
      ...runStarted(),
      ...['one', 'two', 'three'].flatMap((id, i) => [
        ...codonStart(id, i),
        ...usage(id, 100, 10, 0.01 * (i + 1)),
        ...codonEnd(id, 'completed', 0.01 * (i + 1), 1_000 * (i + 1)),
      ]),
      ev('server.idle', { reason: 'all-codons-completed', message: 'all 3 codons have run' }),
    ]);
  const toTwoStart = (autoRestart = false) =>
    rollback({
      toCodon: 'one',
      checkpointType: 'completed',
      undo: ['two', 'three'],
      toRun: 'run-2',
      autoRestart,
    });
  /** The run's history first (the helpers keep the server's totals in order), then `after` on top. */
  const afterThree = (after: () => ServerEvent[]) => {
    const before = threeDone();
    return fold(after(), before);
  };
  const statuses = (s: RunState) => orderedCodons(s.codons).map((c) => `${c.codonId}:${c.status}`);

  it('shows the codons it undid as pending, without the undone cost and time; earlier ones stay done', () => {
    const s = afterThree(() => toTwoStart());
    expect(statuses(s)).toEqual(['one:completed', 'two:pending', 'three:pending']);
    expect(s.codons.one).toMatchObject({ cost: 0.01, duration: 1_000, attempts: 1 });
    for (const id of ['two', 'three']) {
      expect(s.codons[id]).toMatchObject({ status: 'pending', cost: 0, attempts: 0, note: 'undone' });
      expect(s.codons[id]?.duration).toBeUndefined();
      expect(s.codons[id]?.startTime).toBeUndefined();
    }
    // The lines say so too: no cost, no time, and nothing left of the undone attempts.
    const lines = codonLines(s.codons, s.run.idle, 60, Date.now(), true).lines;
    expect(lines.map((l) => l.text.replace(/\s+/g, ' ').trim())).toEqual([
      '✓ one Codon one completed $0.0100 1.0s',
      '· two Codon two undone $0',
      '· three Codon three undone $0',
    ]);
    expect(lines.slice(1).every((l) => l.dim)).toBe(true);
    // Only codons of the new run's lineage are rollback targets.
    expect(
      rollbackTargets(s.codons, s.checkpoints, s.run.runId)
        .filter((t) => t.kind === 'codon')
        .map((t) => t.label),
    ).toEqual(['start of one (Codon one)', 'end of one (completed)']);
  });

  it("keeps the header's cost to the server's figures: the new run's, and every run's", () => {
    const s = afterThree(() => toTwoStart());
    const server = serverTotals();
    expect(server.runCost).toBe(0);
    expect(s.run).toMatchObject({ runId: 'run-2', runCount: 2, runCost: 0, totalCost: server.totalCost });
    expect(describeCost(s.run)).toBe('$0 (all runs $0.0600)');
    // The run's own cost is 0, not the total (the web dashboard's header, overview and fleet).
    expect(currentRunCost(s.run)).toBe(0);
    expect(currentRunCost({ runCount: 1, runCost: 0, totalCost: 0.06 })).toBe(0.06);
    expect(s.run.workTime).toBe(0);
    // The idle of the old run spoke of it: the new run is not "plan done".
    expect(runWord(s.run)).toBe('run running');
  });

  it('with autoRestart, the first undone codon runs again and the rest stay pending', () => {
    const s = afterThree(() => [...toTwoStart(true), ...codonStart('two', 1), ...usage('two', 50, 5, 0.005)]);
    expect(statuses(s)).toEqual(['one:completed', 'two:running', 'three:pending']);
    expect(s.codons.two).toMatchObject({ attempts: 1, cost: 0.005 });
    expect(s.codons.two?.note).toBeUndefined();
    expect(s.codons.three).toMatchObject({ cost: 0, attempts: 0, note: 'undone' });
    expect(s.run).toMatchObject({ runCost: 0.005, totalCost: serverTotals().totalCost });
    expect(runningCodon(s.codons)?.codonId).toBe('two');
  });

  it('names the codon the server says runs next, in the header, the codon list and the help line', () => {
    const s = afterThree(() => [
      ...toTwoStart(),
      ev('server.idle', {
        reason: 'codon-completed',
        message: 'idle; codon.next starts two',
        nextCodonId: 'two',
        lastEnded: { codonId: 'one', status: 'completed' },
      }),
    ]);
    expect(nextCodonId(s.run)).toBe('two');
    expect(runWord(s.run)).toBe('idle · next: two');
    expect(helpLine(false, 100, nextCodonId(s.run))).toMatch(/^READ-WRITE {2}n next: two {2}s skip/);
    const lines = codonLines(s.codons, s.run.idle, 60, Date.now(), true).lines;
    expect(lines[1]).toMatchObject({ tone: 'accent', bold: true });
    expect(lines[1]?.text).toMatch(/^▷ two Codon two\s+next\s+\$0/);
    expect(lines[2]?.text).toMatch(/^· three Codon three\s+undone/);
  });
});

describe('idle', () => {
  it('falls back to the plain idle word and keys when the server does not name the next codon', () => {
    const s = fold([ev('server.idle', { reason: 'codon-completed', message: 'idle' })]);
    expect(nextCodonId(s.run)).toBeUndefined();
    expect(runWord(s.run)).toBe('idle');
    expect(helpLine(false, 100, nextCodonId(s.run))).toMatch(/^READ-WRITE {2}n next {2}s skip/);
    expect(codonLines({}, s.run.idle, 60, 0).lines[0]?.text).toBe('No codon has started yet.');
  });

  it('says plan done when every codon has run, and nothing is next', () => {
    const s = fold([ev('server.idle', { reason: 'all-codons-completed', message: 'all 3 codons have run' })]);
    expect(runWord(s.run)).toBe('plan done');
  });
});

describe('connection and history', () => {
  it('replaces everything with a new history, keeping our commands', () => {
    let s = fold([...codonStart('a', 0), ev('info', { message: 'old' })]);
    s = reduceRun(s, { kind: 'commandSent', id: 'c1', type: 'codon.next', label: 'next' });
    s = reduceRun(s, { kind: 'history', events: codonStart('b', 1) });
    expect(Object.keys(s.codons)).toEqual(['b']);
    expect(s.commands).toHaveLength(1);
    expect(s.connection.syncing).toBe(false);
  });

  it('says clearly when the connection is lost, and when it is back', () => {
    let s = reduceRun(initialRunState('ws://x'), { kind: 'history', events: [] });
    s = reduceRun(s, { kind: 'connection', state: 'reconnecting', at: '2025-01-01T00:00:00Z' });
    expect(statusNotice(s)).toEqual({ text: 'connection lost; reconnecting to ws://x…', tone: 'bad' });
    expect(s.connection.lostAt).toBe('2025-01-01T00:00:00Z');
    s = reduceRun(s, { kind: 'connection', state: 'open', at: '2025-01-01T00:00:05Z' });
    expect(s.notice?.text).toBe('reconnected; syncing history…');
    expect(s.connection).toMatchObject({ reconnects: 1, syncing: true });
    expect(s.connection.lostAt).toBeUndefined();
    s = reduceRun(s, { kind: 'history', events: [] });
    expect(statusNotice(s)?.text).toBe('reconnected; history synced again');
    s = reduceRun(s, { kind: 'connection', state: 'closed', at: '2025-01-01T00:01:00Z' });
    expect(statusNotice(s)?.text).toMatch(/disconnected from ws:\/\/x; press q to quit/);
  });

  it('reports a command that could not be sent', () => {
    const s = reduceRun(initialRunState('ws://x'), {
      kind: 'commandNotSent',
      type: 'codon.next',
      label: 'next',
      message: 'not connected',
    });
    expect(s.notice).toEqual({ text: 'could not send codon.next: not connected', tone: 'bad' });
  });
});

describe('a loop until verify whose gates passed', () => {
  // The plan: build, then polish (until: verify, 3 iterations), then ship.
  const plan = {
    name: 'p',
    codons: ['build', 'sign#0', 'sign#1', 'sign#2', 'ship'].map((codonId, index) => ({
      codonId,
      codonName: codonId,
      index,
    })),
  };
  const seeded = () => {
    const s = initialRunState('ws://x');
    return { ...s, connection: { ...s.connection, plan } };
  };
  const history = (events: ServerEvent[]) => reduceRun(seeded(), { kind: 'history', events });
  const sign0Passed = () => [
    ...runStarted(),
    ...codonStart('build', 0, 'build'),
    ...codonEnd('build', 'completed'),
    ...codonStart('sign#0', 1, 'sign#0'),
    ...codonEnd('sign#0', 'completed'),
  ];
  const text = (s: RunState) =>
    codonLines(s.codons, s.run.idle, 60, Date.now(), true).lines.map((l) =>
      l.text.replace(/\s+/g, ' ').trim(),
    );

  it('shows the iterations passed over as such, not pending, when the next codon is past them', () => {
    const s = history([
      ...sign0Passed(),
      ev('server.idle', {
        reason: 'codon-completed',
        message: 'idle; codon.next starts ship',
        nextCodonId: 'ship',
        lastEnded: { codonId: 'sign#0', status: 'completed' },
      }),
    ]);
    const lines = codonLines(s.codons, s.run.idle, 60, Date.now(), true).lines;
    expect(text(s).slice(2)).toEqual([
      '· sign#1 passed over $0',
      '· sign#2 passed over $0',
      '▷ ship next $0',
    ]);
    expect(lines[2]?.dim && lines[3]?.dim).toBe(true);
  });

  it('and once every codon is done', () => {
    const s = history([
      ...sign0Passed(),
      ...codonStart('ship', 4, 'ship'),
      ...codonEnd('ship', 'completed'),
      ev('server.idle', { reason: 'all-codons-completed', message: 'all 5 codons of plan "p" are done' }),
    ]);
    expect(text(s).slice(2, 4)).toEqual(['· sign#1 passed over $0', '· sign#2 passed over $0']);
    // The same set for the web overview.
    expect([...passedOverCodons(orderedCodons(s.codons), s.run.idle)]).toEqual(['sign#1', 'sign#2']);
  });
});

describe('a codon.message in the activity list (trial 17 M2)', () => {
  it('is one line, the control characters its sender put in shown as stand-ins and its colours dropped', () => {
    const line = messageLine({
      codonId: 'one',
      text: '\u0000\u001b[31mred\u001b[0m\u001b]0;t\u0007\nline2\ttab',
      from: { kind: 'client', clientId: 'c-1' },
      delivery: 'live',
    });
    expect(line).toBe('client c-1 → agent: ␀red␛]0;t␇ line2 tab');
  });

  it("says a message added to a run's prompt (a redo's text, or carried over a crash) is in its next run's prompt", () => {
    const line = messageLine({
      codonId: 'one',
      text: 'keep the tests green',
      from: { kind: 'client', clientId: 'c-1' },
      delivery: 'prompt',
    });
    expect(line).toBe("client c-1 → agent: keep the tests green (in its next run's prompt)");
  });
});
