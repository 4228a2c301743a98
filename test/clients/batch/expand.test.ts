import { describe, expect, it } from 'vitest';
import { expandBatch, matrixCombos } from '../../../src/clients/batch/expand.ts';
import { BatchFile } from '../../../src/plan/batch-schema.ts';

const expand = (input: unknown) => expandBatch(BatchFile.parse(input), '/b');

describe('a batch file expands into jobs', () => {
  it('a 2×2 matrix makes four jobs, every value of each axis, with readable ids and absolute paths', () => {
    const result = expand({
      name: 'b',
      defaults: { plan: 'plan.yaml', vars: { A: '1' } },
      matrix: { workspace: ['repos/one@main', '/abs/two'], model: ['m1', 'm2'] },
    });
    if (!result.ok) throw new Error(JSON.stringify(result.problems));
    expect(result.jobs.map((j) => [j.id, j.index, j.workspace, j.model])).toEqual([
      ['one-main.m1', 0, '/b/repos/one@main', 'm1'],
      ['one-main.m2', 1, '/b/repos/one@main', 'm2'],
      ['two.m1', 2, '/abs/two', 'm1'],
      ['two.m2', 3, '/abs/two', 'm2'],
    ]);
    expect(result.jobs[0]).toMatchObject({
      plan: '/b/plan.yaml',
      vars: { A: '1' },
      axes: { workspace: 'repos/one@main', model: 'm1' },
    });
  });

  it('listed jobs come first and keep their ids; a matrix id that collides gets a suffix', () => {
    const result = expand({
      name: 'b',
      jobs: [{ id: 'm1', plan: 'p.yaml', agent: 'codex' }],
      matrix: { plan: ['p.yaml'], model: ['m1'] },
    });
    if (!result.ok) throw new Error(JSON.stringify(result.problems));
    expect(result.jobs.map((j) => j.id)).toEqual(['m1', 'p.m1']);
    expect(result.jobs[0]).toMatchObject({ agent: 'codex', axes: {} });
  });

  it('exclude removes every combination that has its values; include completes matching ones or adds one', () => {
    const combos = matrixCombos({
      agent: ['builtin', 'codex'],
      model: ['a', 'b'],
      exclude: [{ agent: 'codex', model: 'b' }],
      include: [
        { agent: 'codex', vars: { EFFORT: 'high' } },
        { agent: 'gemini', model: 'g' },
      ],
    });
    expect(combos).toEqual([
      { agent: 'builtin', model: 'a' },
      { agent: 'builtin', model: 'b' },
      { agent: 'codex', model: 'a', 'vars.EFFORT': 'high' },
      { agent: 'gemini', model: 'g' },
    ]);
  });

  it('repeat runs each combination N times, and vars are axes of their own', () => {
    const result = expand({
      name: 'b',
      defaults: { plan: 'p.yaml' },
      matrix: { vars: { SIZE: ['s', 'l'] }, repeat: 2 },
    });
    if (!result.ok) throw new Error(JSON.stringify(result.problems));
    expect(result.jobs.map((j) => [j.id, j.vars])).toEqual([
      ['s.1', { SIZE: 's' }],
      ['s.2', { SIZE: 's' }],
      ['l.1', { SIZE: 'l' }],
      ['l.2', { SIZE: 'l' }],
    ]);
  });

  it('says what is wrong: no job, a job without a plan, a duplicate id', () => {
    const none = expand({ name: 'b' });
    expect(none.ok ? [] : none.problems.map((p) => p.message)).toEqual([
      'The batch has no job: give jobs, a matrix, or both.',
    ]);
    const bad = expand({ name: 'b', jobs: [{ id: 'x' }, { id: 'y', plan: 'p' }, { id: 'y', plan: 'p' }] });
    expect(bad.ok ? [] : bad.problems.map((p) => [p.code, p.path.join('.'), p.message])).toEqual([
      ['DUPLICATE_ID', 'jobs.2.id', 'Job id "y" is already used.'],
      ['MISSING_FIELD', 'jobs.0', 'Job "x" has no plan: set plan on it, in defaults, or as a matrix axis.'],
    ]);
  });

  it('a hostile axis value still makes a safe job id (no path separator, no leading dot)', () => {
    const result = expand({
      name: 'b',
      defaults: { plan: 'p' },
      matrix: { model: ['../../etc/passwd', '.hidden x'] },
    });
    if (!result.ok) throw new Error(JSON.stringify(result.problems));
    for (const job of result.jobs) expect(job.id).toMatch(/^[A-Za-z0-9][A-Za-z0-9._-]*$/);
    expect(result.jobs.map((j) => j.id)).toEqual(['etc-passwd', 'hidden-x']);
  });

  it('a matrix of more jobs than allowed is refused before it is made (a few lines can describe 10^8)', () => {
    const hundred = Array.from({ length: 100 }, (_, i) => `v${i}`);
    const result = expand({
      name: 'b',
      defaults: { plan: 'p' },
      matrix: { model: hundred, vars: { A: hundred, B: hundred, C: hundred } },
    });
    expect(result.ok ? [] : result.problems.map((p) => p.message)).toEqual([
      'The matrix makes up to 100,000,000 jobs; at most 10000 are allowed.',
    ]);
  });
});
