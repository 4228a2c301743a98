import { beforeEach, describe, expect, it } from 'vitest';
import { orderedCodons, runningCodon } from '../../../src/clients/model/store/codons.ts';
import { commandLine } from '../../../src/clients/model/store/command-answers.ts';
import { foldEvents } from '../../../src/clients/model/store/fold-event.ts';
import { messageLine } from '../../../src/clients/model/store/messages.ts';
import { reduceRun } from '../../../src/clients/model/store/reduce.ts';
import { initialRunState, MAX_ACTIVITY, type RunState } from '../../../src/clients/model/store/run-state.ts';
import {
  refusedMessage,
  rollbackTargets,
  runCheckpoints,
  statusNotice,
} from '../../../src/clients/model/store/selectors.ts';
import { totalTokens } from '../../../src/clients/model/store/totals.ts';
import type { ServerEvent } from '../../../src/core/protocol/index.ts';
import {
  codonEnd,
  codonStart,
  RUN,
  resetCost,
  runStarted,
  toolCall,
  toolDone,
  transition,
  usage,
} from './helpers/events.ts';
import { ev } from './helpers/fake-client.ts';

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
