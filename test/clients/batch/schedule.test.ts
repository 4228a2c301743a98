import { describe, expect, it } from 'vitest';
import { jobRunArgs } from '../../../src/clients/batch/run/job-args.ts';
import { defaultParallel } from '../../../src/clients/batch/run/parallel.ts';
import { type Slot, schedule } from '../../../src/clients/batch/run/schedule.ts';
import { exitVerdict, resumedState } from '../../../src/clients/batch/run/verdict.ts';

const pending: Slot = { kind: 'pending', starts: 0, durationMs: 0 };
const running: Slot = {
  kind: 'running',
  starts: 1,
  durationMs: 0,
  pid: 1,
  startedAt: '2026-01-01T00:00:00Z',
};
const failed: Slot = { kind: 'ended', state: 'failed', starts: 1, durationMs: 5 };
const slots = (...list: Slot[]) => list.map((slot, i) => ({ id: `j${i}`, slot }));
const base = { parallel: 2, failFast: false, budget: undefined, stopping: false };

describe('the batch decides', () => {
  it('starts pending jobs in order up to --parallel', () => {
    expect(schedule({ ...base, slots: slots(running, pending, pending) })).toEqual({
      start: ['j1'],
      skip: [],
    });
    expect(schedule({ ...base, slots: slots(pending, pending, pending) }).start).toEqual(['j0', 'j1']);
  });

  it('a spent budget starts nothing more, skips the rest with the reason, and stops the running ones once', () => {
    const decision = schedule({
      ...base,
      slots: slots(running, pending),
      budget: { maxCostUsd: 1, spentUsd: 1.2 },
    });
    expect(decision).toEqual({
      start: [],
      skip: [{ id: 'j1', reason: 'the batch budget ($1) is spent ($1.2000)' }],
      stopRunning: 'the batch budget ($1) is spent ($1.2000)',
    });
    const stopped = { ...running, stopping: 'x' };
    expect(
      schedule({ ...base, slots: slots(stopped), budget: { maxCostUsd: 1, spentUsd: 2 } }).stopRunning,
    ).toBeUndefined();
  });

  it('--fail-fast halts after a failed job; without it the others go on', () => {
    expect(schedule({ ...base, slots: slots(failed, pending) }).start).toEqual(['j1']);
    expect(schedule({ ...base, failFast: true, slots: slots(failed, pending) }).skip).toEqual([
      { id: 'j1', reason: '--fail-fast: job j0 failed' },
    ]);
  });

  it('a stopped batch neither starts nor skips: pending jobs stay to be resumed', () => {
    expect(schedule({ ...base, stopping: true, slots: slots(running, pending) })).toEqual({
      start: [],
      skip: [],
    });
  });
});

describe("a job's end", () => {
  it('exit 0 passed, 1 failed (never retried), 2 refused (not retried), 3/4/signal retried while starts are left', () => {
    expect(exitVerdict({ code: 0, signal: null }, 1, undefined)).toEqual({ kind: 'ended', state: 'passed' });
    expect(exitVerdict({ code: 1, signal: null }, 1, 'ribosome: not done')).toEqual({
      kind: 'ended',
      state: 'failed',
      reason: 'ribosome: not done',
    });
    expect(exitVerdict({ code: 2, signal: null }, 5, 'bad plan').kind).toBe('ended');
    expect(exitVerdict({ code: 4, signal: null }, 1, undefined)).toEqual({
      kind: 'retry',
      reason: 'its run could not write its files (exit 4)',
    });
    expect(exitVerdict({ code: null, signal: 'SIGKILL' }, 0, undefined)).toEqual({
      kind: 'ended',
      state: 'infra-failed',
      reason: 'its run was killed by SIGKILL',
    });
  });

  it('a batch started again reads each job from its execution: completed passed, failed failed, the rest resume', () => {
    const row = (status: string) =>
      ({ status, failed: ['b'] }) as unknown as Parameters<typeof resumedState>[0];
    expect(resumedState(undefined)).toEqual({ state: 'pending' });
    expect(resumedState(row('completed'))).toEqual({ state: 'passed' });
    expect(resumedState(row('failed'))).toEqual({ state: 'failed', reason: 'failed: b' });
    expect(resumedState(row('crashed'))).toEqual({ state: 'pending' });
    expect(resumedState(row('ended'))).toEqual({ state: 'pending' });
  });
});

describe("a job's run", () => {
  const job = {
    id: 'a',
    index: 0,
    plan: '/p.yaml',
    vars: { X: '1 2' },
    axes: {},
    model: 'm',
    agent: 'codex' as const,
  };
  it("passes the job's settings, its own budget, and the batch's shared settings", () => {
    const args = jobRunArgs({ ...job, budget: { maxCostUsd: 5, maxDurationMs: 60_000 } }, '/b/jobs/a', {
      scriptedProvider: 's.yaml',
      sandbox: false,
      sharedLimits: '/b/usage-limits',
    });
    expect(args).toEqual([
      ...['run', '/p.yaml', '--headless', '--exit-when-done', '--execution', '/b/jobs/a', '--port', '0'],
      ...['--model', 'm', '--agent', 'codex', '--var', 'X=1 2', '--max-cost', '5', '--max-time', '60000'],
      ...['--scripted-provider', 's.yaml', '--no-sandbox', '--shared-limits', '/b/usage-limits'],
    ]);
    expect(jobRunArgs(job, '/e', {})).not.toContain('--max-cost');
  });

  it('--parallel defaults to two jobs a core, fewer when half the free memory holds fewer at 768 MiB each, never 0', () => {
    const GiB = 1024 ** 3;
    for (const [cores, freeGiB, expected] of [
      [8, 64, 16],
      [2, 22, 4],
      [8, 3, 2],
      [8, 1.4, 1],
      [2, 0, 1],
    ] as const) {
      expect(defaultParallel({ cores, freeBytes: freeGiB * GiB, totalBytes: 64 * GiB })).toBe(expected);
    }
    expect(defaultParallel({ cores: 4, freeBytes: 64 * GiB, totalBytes: 2 * GiB })).toBe(1);
  });
});
