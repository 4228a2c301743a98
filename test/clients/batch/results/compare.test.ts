import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compareJobs, spread } from '../../../../src/clients/batch/results/compare.ts';
import type { JobResult } from '../../../../src/clients/batch/summary-schema.ts';
import { job, metrics } from './summaries.ts';

const matrixJob = (
  id: string,
  axes: Record<string, string>,
  over: Partial<JobResult> & { cost?: number; gated?: [number, number] } = {},
) => {
  const { cost, gated, ...rest } = over;
  return job(id, {
    axes,
    metrics: metrics({
      costUsd: cost ?? 1,
      ...(gated ? { gatedCodons: gated[0], gatesFirstTry: gated[1] } : {}),
    }),
    ...rest,
  });
};

describe('compareJobs', () => {
  const a = { agent: 'claude-code', model: 'opus' };
  const b = { agent: 'codex', model: 'gpt' };
  const jobs = [
    matrixJob('a1', { ...a, repeat: '1' }, { cost: 1, durationMs: 10_000, gated: [2, 2] }),
    matrixJob('b1', { ...b, repeat: '1' }, { cost: 5, state: 'failed', gated: [2, 0] }),
    matrixJob('a2', { ...a, repeat: '2' }, { cost: 2, durationMs: 20_000, gated: [2, 1] }),
    matrixJob('b2', { ...b, repeat: '2' }, { state: 'infra-failed', cost: 0.5 }),
    matrixJob('a3', { ...a, repeat: '3' }, { cost: 4, durationMs: 40_000, state: 'failed' }),
    matrixJob('a4', { ...a, repeat: '4' }, { cost: 3, durationMs: 30_000 }),
    matrixJob('b3', { ...b, repeat: '3' }, { state: 'pending', metrics: undefined, durationMs: undefined }),
  ];

  it('groups the repeats of each combination; success over verdicts; quartiles from four jobs', () => {
    const { axes, groups } = compareJobs(jobs);
    expect(axes).toEqual(['agent', 'model']);
    const [first, second] = groups;
    expect(groups).toHaveLength(2);
    expect(first).toMatchObject({
      axes: a,
      label: 'claude-code · opus',
      jobIds: ['a1', 'a2', 'a3', 'a4'],
      passed: 3,
      failed: 1,
      infraFailed: 0,
      notRun: 0,
      successRate: 0.75,
      gatedCodons: 4,
      gatesFirstTry: 3,
      gatesFirstTryRate: 0.75,
      costUsd: { n: 4, min: 1, median: 2.5, max: 4, p25: 1.75, p75: 3.25 },
      durationMs: { n: 4, min: 10_000, median: 25_000, max: 40_000, p25: 17_500, p75: 32_500 },
    });
    // An infrastructure failure is no verdict on the configuration; a pending job is no sample.
    expect(second).toMatchObject({
      label: 'codex · gpt',
      passed: 0,
      failed: 1,
      infraFailed: 1,
      notRun: 1,
      successRate: 0,
      gatesFirstTryRate: 0,
      costUsd: { n: 2, min: 0.5, median: 2.75, max: 5 },
    });
    expect(second?.costUsd?.p25).toBeUndefined();
    expect(second?.points.map((p) => p.id)).toEqual(['b1', 'b2']);
  });

  it('the workspace is an axis of the groups unless pooled; listed jobs are groups of their own', () => {
    const spread = [
      matrixJob('x', { workspace: '/r/one', model: 'm' }),
      matrixJob('y', { workspace: '/r/two', model: 'm' }),
      job('by-hand'),
    ];
    const apart = compareJobs(spread);
    expect(apart.axes).toEqual(['workspace', 'model']);
    expect(apart.groups.map((g) => g.label)).toEqual(['/r/one · m', '/r/two · m', 'by-hand']);
    const pooled = compareJobs(spread, { poolWorkspaces: true });
    expect(pooled.axes).toEqual(['model']);
    expect(pooled.groups.map((g) => [g.label, g.jobIds])).toEqual([
      ['m', ['x', 'y']],
      ['by-hand', ['by-hand']],
    ]);
  });

  it('repeats alone make one group', () => {
    const repeats = [matrixJob('r1', { repeat: '1' }), matrixJob('r2', { repeat: '2' })];
    expect(compareJobs(repeats)).toMatchObject({
      axes: [],
      groups: [{ label: 'every job', jobIds: ['r1', 'r2'] }],
    });
  });

  it('spread: none of nothing; one number is its own median', () => {
    expect(spread([])).toBeUndefined();
    expect(spread([7])).toEqual({ n: 1, min: 7, median: 7, max: 7 });
    expect(spread([3, 1])).toEqual({ n: 2, min: 1, median: 2, max: 3 });
  });
});

describe('compareJobs, for any jobs', () => {
  const axisValue = fc.constantFrom('p', 'q', 'r');
  const anyJob = fc.record({
    axes: fc.dictionary(fc.constantFrom('agent', 'model', 'workspace', 'repeat', 'vars.N'), axisValue),
    state: fc.constantFrom('pending', 'running', 'passed', 'failed', 'skipped', 'infra-failed' as const),
    cost: fc.option(fc.double({ min: 0, max: 1e6, noNaN: true })),
    durationMs: fc.option(fc.double({ min: 0, max: 1e9, noNaN: true })),
    poolWorkspaces: fc.boolean(),
  });

  it('the groups partition the jobs, share their axis values, and each spread holds its median and quartiles', () => {
    fc.assert(
      fc.property(fc.array(anyJob, { maxLength: 40 }), fc.boolean(), (drafts, poolWorkspaces) => {
        const jobs = drafts.map((d, i) =>
          job(`j${i}`, {
            axes: d.axes,
            state: d.state,
            ...(d.durationMs === null ? { durationMs: undefined } : { durationMs: d.durationMs }),
            ...(d.cost === null ? { metrics: undefined } : { metrics: metrics({ costUsd: d.cost }) }),
          }),
        );
        const { groups } = compareJobs(jobs, { poolWorkspaces });
        const ids = groups.flatMap((g) => g.jobIds);
        expect(ids.sort()).toEqual(jobs.map((j) => j.id).sort());
        for (const g of groups) {
          expect(g.passed + g.failed + g.infraFailed + g.notRun).toBe(g.jobIds.length);
          const own = jobs.filter((j) => g.jobIds.includes(j.id));
          for (const [axis, value] of Object.entries(g.axes)) {
            expect(axis).not.toBe('repeat');
            expect(own.every((j) => j.axes[axis] === value)).toBe(true);
          }
          for (const s of [g.costUsd, g.durationMs, g.outputTokens]) {
            if (!s) continue;
            expect(s.min).toBeLessThanOrEqual(s.median);
            expect(s.median).toBeLessThanOrEqual(s.max);
            if (s.p25 !== undefined && s.p75 !== undefined) {
              expect(s.min).toBeLessThanOrEqual(s.p25);
              expect(s.p25).toBeLessThanOrEqual(s.median);
              expect(s.median).toBeLessThanOrEqual(s.p75);
              expect(s.p75).toBeLessThanOrEqual(s.max);
            } else expect(s.n).toBeLessThan(4);
          }
          if (g.successRate !== null) {
            expect(g.successRate).toBeGreaterThanOrEqual(0);
            expect(g.successRate).toBeLessThanOrEqual(1);
          }
        }
        // Jobs in different groups differ in some axis the groups keep.
        const keys = groups.map((g) => JSON.stringify(g.axes));
        const matrixKeys = keys.filter(
          (_, i) => Object.keys(jobs.find((j) => j.id === groups[i]?.jobIds[0])?.axes ?? {}).length > 0,
        );
        expect(new Set(matrixKeys).size).toBe(matrixKeys.length);
      }),
      { numRuns: 300 },
    );
  });
});
