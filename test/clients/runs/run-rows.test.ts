import { describe, expect, it } from 'vitest';
import { exitSummaryLine, formatRuns, runRows } from '../../../src/clients/runs/index.ts';
import { reduceAll } from '../../../src/execution/state/reducer.ts';
import type { Transition } from '../../../src/execution/state/transitions.ts';

const runId = 'run-1';
const checkpoint = (codonId: string, status: 'completed' | 'failed', sha: string): Transition => ({
  type: 'CheckpointCreated',
  data: {
    runId,
    checkpoint: {
      codonId,
      codonName: codonId,
      checkpointType: status === 'completed' ? 'completed' : 'error',
      sha,
      status,
      timestamp: '2026-01-01T00:00:10.000Z',
    },
  },
});
const state = reduceAll([
  { type: 'RunStarted', data: { runId, startedAt: '2026-01-01T00:00:00.000Z', reason: 'start' } },
  { type: 'InitialCheckpointSet', data: { runId, sha: 'a'.repeat(40) } },
  checkpoint('one', 'completed', 'b'.repeat(40)),
  checkpoint('two', 'failed', 'c'.repeat(40)),
]);
const plan = {
  name: 'p',
  recordedAt: '2026-01-01T00:00:00.000Z',
  codons: ['one', 'two', 'three'].map((id) => ({ id, name: id })),
};
const now = new Date('2026-01-01T00:01:00.000Z');
const lastEventAt = new Map([[runId, '2026-01-01T00:00:42.000Z']]);

describe('runRows', () => {
  it('a running run with its server alive: to now, status running', () => {
    expect(runRows(state, { plan, serverAlive: true, lastEventAt, now })).toEqual([
      {
        id: runId,
        status: 'running',
        reason: 'start',
        done: 1,
        total: 3,
        failed: ['two'],
        stopped: [],
        cost: 0,
        costEstimated: false,
        startedAt: '2026-01-01T00:00:00.000Z',
        endedAt: null,
        durationMs: 60_000,
        branch: 'run/run-1',
      },
    ]);
  });

  it('a running run no server holds: crashed, ended at its last journaled event', () => {
    const [row] = runRows(state, { plan, serverAlive: false, lastEventAt, now });
    expect(row).toMatchObject({ status: 'crashed', endedAt: '2026-01-01T00:00:42.000Z', durationMs: 42_000 });
  });

  it("marks a run's cost estimated (table and --json) when an agent that reports no cost spent in it", () => {
    const spent = (codonId: string, amount: number, estimated: boolean): Transition[] => [
      {
        type: 'CodonStarted',
        data: {
          runId,
          codonId,
          codonName: codonId,
          codonIndex: 0,
          sessionId: `s-${codonId}`,
          startTime: '2026-01-01T00:00:01.000Z',
          ...(estimated ? { costEstimated: true as const } : {}),
        },
      },
      { type: 'CostsIncremented', data: { runId, codonId, amount, source: 'agent' } },
    ];
    const exact = reduceAll(spent('one', 0.01, false), state);
    const [plain] = runRows(exact, { plan, serverAlive: true, lastEventAt, now });
    expect(plain).toMatchObject({ cost: 0.01, costEstimated: false });
    expect(formatRuns([plain!])).not.toContain('~');
    const priced = reduceAll(spent('two', 0.0504, true), exact);
    const rows = runRows(priced, { plan, serverAlive: true, lastEventAt, now });
    expect(JSON.parse(JSON.stringify(rows))[0]).toMatchObject({ cost: 0.0604, costEstimated: true });
    const table = formatRuns(rows).split('\n');
    expect(table[1]).toContain(' ~$0.0604 ');
    expect(table.at(-1)).toMatch(/^~ marks an estimate: .*no cost/);
    expect(
      exitSummaryLine({
        latest: rows[0],
        cost: 0.0604,
        costEstimated: true,
        durationMs: 1_000,
        code: 0,
        reason: undefined,
      }),
    ).toContain(', ~$0.0604, 1.0s,');
  });

  it('without a plan record (an older execution) the total is unknown', () => {
    const [row] = runRows(state, { plan: undefined, serverAlive: true, lastEventAt, now });
    expect(row).toMatchObject({ done: 1, total: null });
  });
});

describe('a run a rollback left', () => {
  // Run 1: one completed, two stopped (a sentinel's redo, or forceStop), then a rollback to two's start.
  const stopped: Transition = {
    type: 'CheckpointCreated',
    data: {
      runId,
      checkpoint: {
        codonId: 'two',
        codonName: 'two',
        checkpointType: 'error',
        sha: 'c'.repeat(40),
        status: 'stopped',
        timestamp: '2026-01-01T00:00:10.000Z',
      },
    },
  };
  const at = '2026-01-01T00:00:20.000Z';
  const rolled = reduceAll([
    { type: 'RunStarted', data: { runId, startedAt: '2026-01-01T00:00:00.000Z', reason: 'start' } },
    { type: 'InitialCheckpointSet', data: { runId, sha: 'a'.repeat(40) } },
    checkpoint('one', 'completed', 'b'.repeat(40)),
    stopped,
    { type: 'RunCompleted', data: { runId, endedAt: at } },
    {
      type: 'RunStarted',
      data: {
        runId: 'run-2',
        startedAt: at,
        reason: 'rollback',
        fromRunId: runId,
        fromCheckpoint: 'b'.repeat(40),
      },
    },
  ]);

  it('is rolled-back, its stopped codon named as stopped, not failed; the run it began goes on', () => {
    const rows = runRows(rolled, { plan, serverAlive: true, lastEventAt, now });
    expect(rows.map((r) => [r.id, r.status, r.failed, r.stopped])).toEqual([
      [runId, 'rolled-back', ['two'], ['two']],
      ['run-2', 'running', [], []],
    ]);
    const table = formatRuns(rows).split('\n');
    expect(table[1]).toMatch(/^run-1 +rolled back \(stopped: two\) +1\/3 /);
    expect(table[2]).toMatch(/^run-2 +running +1\/3 /);
  });

  it('a run that ended by itself with a codon stopped and one failed names each so', () => {
    const ended = reduceAll([
      { type: 'RunStarted', data: { runId, startedAt: '2026-01-01T00:00:00.000Z', reason: 'start' } },
      checkpoint('one', 'failed', 'b'.repeat(40)),
      stopped,
      { type: 'RunCompleted', data: { runId, endedAt: at } },
    ]);
    const rows = runRows(ended, { plan, serverAlive: false, lastEventAt, now });
    expect(rows[0]?.status).toBe('failed');
    expect(formatRuns(rows).split('\n')[1]).toMatch(/^run-1 +failed \(failed: one; stopped: two\) /);
  });
});

describe('an ended run is named by what happened (trial 17b L7)', () => {
  const at = '2026-01-01T00:00:20.000Z';
  const ending = (codonId: string, status: 'completed' | 'failed' | 'stopped'): Transition => ({
    type: 'CheckpointCreated',
    data: {
      runId,
      checkpoint: {
        codonId,
        codonName: codonId,
        checkpointType: status === 'completed' ? 'completed' : 'error',
        sha: codonId.padEnd(40, '0').slice(0, 40),
        status,
        timestamp: '2026-01-01T00:00:10.000Z',
      },
    },
  });
  const ended = (endings: Transition[], end: Transition['type']) =>
    reduceAll([
      { type: 'RunStarted', data: { runId, startedAt: '2026-01-01T00:00:00.000Z', reason: 'start' } },
      ...endings,
      end === 'RunFailed'
        ? { type: 'RunFailed', data: { runId, endedAt: at, reason: 'codon two stopped; SIGTERM' } }
        : { type: 'RunCompleted', data: { runId, endedAt: at } },
    ]);
  const row = (state: ReturnType<typeof reduceAll>) => {
    const rows = runRows(state, { plan, serverAlive: false, lastEventAt, now });
    return { status: rows[0]?.status, line: formatRuns(rows).split('\n')[1] };
  };

  it('codons only stopped (a halt, a forceStop), then a shutdown: stopped, not failed', () => {
    const r = row(ended([ending('one', 'stopped'), ending('two', 'stopped')], 'RunFailed'));
    expect(r.status).toBe('stopped');
    expect(r.line).toMatch(/^run-1 +stopped \(stopped: one, two\) +0\/3 /);
  });

  it('a shutdown between codons with 2 of 3 done: ended, not completed', () => {
    const r = row(ended([ending('one', 'completed'), ending('two', 'completed')], 'RunCompleted'));
    expect(r.status).toBe('ended');
    expect(r.line).toMatch(/^run-1 +ended +2\/3 /);
  });

  it('every codon done: completed', () => {
    const all = row(
      ended(
        [ending('one', 'completed'), ending('two', 'completed'), ending('three', 'completed')],
        'RunCompleted',
      ),
    );
    expect(all.line).toMatch(/^run-1 +completed +3\/3 /);
  });

  it('a failed codon among stopped ones, with codons left: failed', () => {
    expect(row(ended([ending('one', 'failed'), ending('two', 'stopped')], 'RunFailed')).status).toBe(
      'failed',
    );
  });
});

describe('the exit summary', () => {
  it('says codons, failures, cost, time and why', () => {
    const [latest] = runRows(state, { plan, serverAlive: false, lastEventAt, now });
    expect(
      exitSummaryLine({ latest, cost: 0.01234, durationMs: 41_400, code: 1, reason: 'a codon failed' }),
    ).toBe('ribosome: not done: 1/3 codons, failed or stopped: two, $0.0123, 41.4s, exit 1 (a codon failed)');
    expect(exitSummaryLine({ latest: undefined, cost: 0, durationMs: 0, code: 4, reason: undefined })).toBe(
      'ribosome: not done: $0.0000, 0ms, exit 4',
    );
  });
});
