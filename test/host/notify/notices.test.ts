import { describe, expect, it } from 'vitest';
import {
  type EventData,
  type EventType,
  makeEvent,
  type ServerEvent,
  type StateTransitionType,
} from '../../../src/core/protocol/index.ts';
import { NoticeClassifier } from '../../../src/host/notify/notices.ts';

const ev = <T extends EventType>(type: T, data: EventData<T>) => makeEvent(type, data) as ServerEvent;
const transition = (transitionType: StateTransitionType, data: Record<string, unknown>, runCost = 0) =>
  ev('state.transition', {
    transitionType,
    transition: { type: transitionType, data },
    resultingState: { currentRunId: 'run-2', runCount: 2, totalCost: runCost + 1, currentRunCost: runCost },
  });
const started = (codonId: string, extra: Partial<EventData<'codon.started'>> = {}) =>
  ev('codon.started', {
    codonId,
    codonName: codonId,
    sessionId: 's',
    startTime: new Date().toISOString(),
    ...extra,
  });
const failed = (codonId: string) =>
  ev('codon.completed', {
    codonId,
    success: false,
    cost: 0.25,
    duration: 1200,
    exitStatus: { type: 'error', code: 1 },
    failureReason: { type: 'api-error', retriable: true, message: 'HTTP 500 from the provider' },
  });
const idle = (data: EventData<'server.idle'>) => ev('server.idle', data);

function classifier(more: { approveAll?: boolean } = {}) {
  const c = new NoticeClassifier(
    { plan: 'demo', serverVersion: '9.9.9', executionPath: '/x/exec', runId: 'run-1', ...more },
    0,
  );
  const runStart = Date.parse('2030-01-01T00:00:00.000Z');
  const feed = (...events: ServerEvent[]) => events.flatMap((e) => c.next(e, runStart + 5000));
  feed(
    transition('RunStarted', {
      runId: 'run-2',
      startedAt: new Date(runStart).toISOString(),
      reason: 'start',
    }),
  );
  return feed;
}

describe('NoticeClassifier', () => {
  it('usage-limit: the run begins to wait for a reset, with the agent, the reset and when the codon starts again', () => {
    const feed = classifier();
    const [notice, ...rest] = feed(
      started('two'),
      ev('usageLimit.waiting', {
        codonId: 'two',
        agent: 'claude-code',
        resetsAt: '2030-01-01T05:00:00.000Z',
        until: '2030-01-01T05:01:00.000Z',
        waitMs: 18_055_000,
        message: 'waiting for the usage limit of claude-code to reset at 05:00 (in 5 h)',
      }),
    );
    expect(rest).toEqual([]);
    expect(notice).toMatchObject({
      event: 'usage-limit',
      codonId: 'two',
      runId: 'run-2',
      reason: 'waiting for the usage limit of claude-code to reset at 05:00 (in 5 h)',
      usageLimit: {
        agent: 'claude-code',
        resetsAt: '2030-01-01T05:00:00.000Z',
        until: '2030-01-01T05:01:00.000Z',
      },
    });
  });

  it('approval-needed: a codon waits for a person, once per wait (given back after a refused command, it is the same one)', () => {
    const feed = classifier();
    const wait = {
      codonId: 'design',
      codonName: 'Design the API',
      since: '2030-01-01T00:00:04.000Z',
      approvers: 'control-clients' as const,
      message: 'waiting for approval of codon design (Design the API)',
    };
    const notices = feed(
      started('design'),
      ev('approval.waiting', wait),
      ev('approval.waiting', { ...wait, message: 'rollback.toCheckpoint was refused; waiting for approval' }),
      idle({ reason: 'codon-completed', message: 'waiting', heldBy: 'approval', approval: wait }),
    );
    expect(notices).toHaveLength(1);
    expect(notices[0]).toMatchObject({
      event: 'approval-needed',
      codonId: 'design',
      codonName: 'Design the API',
      reason: 'waiting for approval of codon design (Design the API)',
      runId: 'run-2',
    });
    expect(feed(ev('approval.waiting', { ...wait, since: '2030-01-01T00:09:00.000Z' }))).toHaveLength(1);
    // --approve-all approves every wait at once: nobody waits, nobody is called.
    expect(classifier({ approveAll: true })(started('design'), ev('approval.waiting', wait))).toEqual([]);
  });

  it('codon-failed: a codon that failed, with its cost, duration, reason, attempt and the run around it', () => {
    const feed = classifier();
    const notices = feed(
      started('two', { attempt: 2, maxAttempts: 3 }),
      transition('CostsUpdated', { runId: 'run-2', codonId: 'two', cost: 0.2 }, 0.7),
      transition(
        'CodonTransitioned',
        { runId: 'run-2', codonId: 'two', from: 'running', to: 'failed', at: 'x' },
        0.75,
      ),
      failed('two'),
    );
    expect(notices).toEqual([
      {
        event: 'codon-failed',
        runId: 'run-2',
        plan: 'demo',
        codonId: 'two',
        reason: 'HTTP 500 from the provider',
        failureReason: { type: 'api-error', retriable: true, message: 'HTTP 500 from the provider' },
        codonCostUsd: 0.25,
        codonDurationMs: 1200,
        runCostUsd: 0.75,
        runDurationMs: 5000,
        attempt: 2,
        maxAttempts: 3,
        timestamp: '2030-01-01T00:00:05.000Z',
        serverVersion: '9.9.9',
        executionPath: '/x/exec',
      },
    ]);
  });

  it('a skipped codon and a successful one are no failures', () => {
    const feed = classifier();
    const skip = transition('CodonTransitioned', {
      runId: 'run-2',
      codonId: 'one',
      from: 'running',
      to: 'skipped',
      at: 'x',
    });
    expect(feed(started('one'), skip, failed('one'))).toEqual([]);
    const ok = ev('codon.completed', {
      codonId: 'two',
      success: true,
      cost: 0,
      duration: 1,
      exitStatus: { type: 'success' },
    });
    expect(feed(started('two'), ok)).toEqual([]);
  });

  it('budget-exceeded and stalled come from their error codes, with the codon spend so far; other codes give nothing', () => {
    const feed = classifier();
    feed(
      started('one'),
      transition('CostsUpdated', { runId: 'run-2', codonId: 'one', cost: 1.5 }),
      transition('CostsIncremented', { runId: 'run-2', codonId: 'one', amount: 0.5, source: 'sentinel' }, 2),
    );
    const error = (code: string, message: string) =>
      ev('error', { message, codon: 'one', fatal: false, severity: 'codon', code });
    const notices = feed(
      error('BUDGET_EXCEEDED', 'codon budget maxCostUsd 1.8 exceeded: spent 2.0'),
      error('CODON_STALLED', 'codon one stalled'),
      error('CODON_FAILED', 'codon one failed'),
      error('NOTIFY_FAILED', 'not delivered'),
    );
    expect(notices.map((n) => [n.event, n.codonId, n.codonCostUsd, n.runCostUsd, n.reason])).toEqual([
      ['budget-exceeded', 'one', 2, 2, 'codon budget maxCostUsd 1.8 exceeded: spent 2.0'],
      ['stalled', 'one', 2, 2, 'codon one stalled'],
    ]);
  });

  it('run-completed when the server idles with every codon done, only after it ran a codon', () => {
    const feed = classifier();
    const allDone = idle({ reason: 'all-codons-completed', message: 'all 2 codons of plan "demo" are done' });
    expect(feed(allDone)).toEqual([]);
    const notices = feed(started('two'), allDone);
    expect(notices).toMatchObject([
      { event: 'run-completed', reason: 'all 2 codons of plan "demo" are done' },
    ]);
    expect(notices[0]?.codonId).toBeUndefined();
  });

  it('run-failed once when the run stops going on after a failure, not again when it then ends failed', () => {
    const feed = classifier();
    const stuck = idle({
      reason: 'codon-completed',
      message: 'idle; two failed; 1 of 3 codons done; codon.next starts two',
      nextCodonId: 'two',
      lastEnded: { codonId: 'two', status: 'failed' },
    });
    const notices = feed(started('two'), failed('two'), stuck, stuck);
    expect(notices.map((n) => n.event)).toEqual(['codon-failed', 'run-failed']);
    expect(notices[1]).toMatchObject({
      codonId: 'two',
      reason: 'HTTP 500 from the provider (idle; two failed; 1 of 3 codons done; codon.next starts two)',
      failureReason: { type: 'api-error' },
    });
    expect(
      feed(transition('RunFailed', { runId: 'run-2', endedAt: 'x', reason: 'codon two failed; shutdown' })),
    ).toEqual([]);
  });

  it('run-failed when the run ends failed without idling first (a shutdown, `then: abort`)', () => {
    const feed = classifier();
    feed(started('one'), failed('one'));
    const notices = feed(
      transition('RunFailed', { runId: 'run-2', endedAt: 'x', reason: 'codon one failed; abort' }),
    );
    expect(notices).toMatchObject([
      { event: 'run-failed', codonId: 'one', reason: 'HTTP 500 from the provider (codon one failed; abort)' },
    ]);
  });

  it('an idle after a success is no failure; a new codon start allows the next run-failed', () => {
    const feed = classifier();
    const idleAfter = (status: 'completed' | 'failed') =>
      idle({
        reason: 'codon-completed',
        message: 'idle',
        nextCodonId: 'b',
        lastEnded: { codonId: 'a', status },
      });
    expect(feed(started('a'), idleAfter('completed'))).toEqual([]);
    expect(feed(started('a'), failed('a'), idleAfter('failed')).map((n) => n.event)).toEqual([
      'codon-failed',
      'run-failed',
    ]);
    expect(feed(started('a'), failed('a'), idleAfter('failed')).map((n) => n.event)).toEqual([
      'codon-failed',
      'run-failed',
    ]);
  });

  it("a crash's codon-failed speaks of the run the codon belonged to: its id and its cost, not the new run's", () => {
    const c = new NoticeClassifier({
      plan: 'demo',
      serverVersion: '9.9.9',
      executionPath: '/x/exec',
      runId: 'run-2',
      previousRun: { runId: 'run-1', cost: 0.42 },
    });
    // The restarted server ends the crashed run (no longer current) with its codon's end.
    const crashed = ev('state.transition', {
      transitionType: 'RunCrashed',
      transition: { type: 'RunCrashed', data: { runId: 'run-1', detectedAt: 'x', codonId: 'two' } },
      resultingState: { currentRunId: null, runCount: 1, totalCost: 0.42, currentRunCost: 0 },
    });
    const notices = [crashed, failed('two')].flatMap((e) => c.next(e));
    expect(notices).toMatchObject([{ event: 'codon-failed', runId: 'run-1', runCostUsd: 0.42 }]);
    // The recovery run that follows is the new run again.
    c.next(
      ev('state.transition', {
        transitionType: 'RunStarted',
        transition: { type: 'RunStarted', data: { runId: 'run-2', startedAt: 'x', reason: 'recovery' } },
        resultingState: { currentRunId: 'run-2', runCount: 2, totalCost: 0.42, currentRunCost: 0 },
      }),
    );
    expect(c.next(failed('two'))).toMatchObject([{ runId: 'run-2', runCostUsd: 0 }]);
  });

  it('carries the estimated-cost flags the other views show', () => {
    const feed = classifier();
    const estimatedRun = ev('state.transition', {
      transitionType: 'CostsUpdated',
      transition: { type: 'CostsUpdated', data: { runId: 'run-2', codonId: 'one', cost: 0.3 } },
      resultingState: {
        currentRunId: 'run-2',
        runCount: 2,
        totalCost: 1.3,
        currentRunCost: 0.3,
        currentRunCostEstimated: true,
      },
    });
    const priced = transition('CodonStarted', {
      runId: 'run-2',
      codonId: 'one',
      codonName: 'one',
      codonIndex: 0,
      sessionId: 's',
      startTime: 'x',
      costEstimated: true,
    });
    const stalled = ev('error', { message: 'stalled', codon: 'one', fatal: false, code: 'CODON_STALLED' });
    expect(feed(priced, started('one'), estimatedRun, stalled)).toMatchObject([
      { event: 'stalled', codonCostUsd: 0.3, codonCostEstimated: true, runCostEstimated: true },
    ]);
    const completed = ev('codon.completed', {
      ...(failed('one').data as EventData<'codon.completed'>),
      costEstimated: true,
    });
    expect(feed(completed)).toMatchObject([{ event: 'codon-failed', codonCostEstimated: true }]);
    // A cost the agent reported is no estimate: no flag at all.
    expect(feed(started('two'), failed('two'))[0]).not.toHaveProperty('codonCostEstimated');
  });
});
