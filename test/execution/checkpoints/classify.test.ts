import { describe, expect, it } from 'vitest';
import { type ObservedPath, planClean, planStage } from '../../../src/execution/checkpoints/classify.ts';

const CAP = 100;
const entry = (path: string, tracked: boolean, kind: ObservedPath['kind'], bytes = 10): ObservedPath => ({
  path: Buffer.from(path),
  tracked,
  kind,
  bytes,
});
const names = (paths: Buffer[]) => paths.map(String);

describe('planStage', () => {
  it.each<[string, ObservedPath, { update?: string[]; forceRemove?: string[]; skipped?: string[] }]>([
    ['a new small file', entry('new', false, 'file'), { update: ['new'] }],
    ['a new symlink', entry('link', false, 'symlink'), { update: ['link'] }],
    ['a modified file', entry('mod', true, 'file'), { update: ['mod'] }],
    ['a deleted file', entry('gone', true, 'missing'), { update: ['gone'] }],
    ['a file turned directory', entry('dir', true, 'directory'), { forceRemove: ['dir'] }],
    ['a file beyond a new symlink', entry('a/f', true, 'unreachable'), { forceRemove: ['a/f'] }],
    ['a file at exactly the cap', entry('edge', false, 'file', CAP), { update: ['edge'] }],
    ['a new file over the cap', entry('big', false, 'file', CAP + 1), { skipped: ['big'] }],
    [
      'a tracked file grown over the cap',
      entry('grew', true, 'file', CAP + 1),
      { forceRemove: ['grew'], skipped: ['grew'] },
    ],
    ['a tracked file turned FIFO', entry('fifo', true, 'other'), { forceRemove: ['fifo'] }],
    ['a new FIFO', entry('fifo', false, 'other'), {}],
    ['a new file gone again', entry('flash', false, 'missing'), {}],
  ])('handles %s', (_, observed, expected) => {
    const plan = planStage([observed], CAP);
    expect(names(plan.update)).toEqual(expected.update ?? []);
    expect(names(plan.forceRemove)).toEqual(expected.forceRemove ?? []);
    expect(plan.skipped.map((s) => s.path)).toEqual(expected.skipped ?? []);
  });

  it('reports the size of skipped files', () => {
    expect(planStage([entry('big', false, 'file', 5000)], CAP).skipped).toEqual([
      { path: 'big', bytes: 5000 },
    ]);
  });
});

describe('planClean', () => {
  it('removes small files and links, keeps big files, leaves the rest', () => {
    const plan = planClean(
      [
        entry('a', false, 'file'),
        entry('l', false, 'symlink'),
        entry('big', false, 'file', CAP + 1),
        entry('gone', false, 'missing'),
        entry('fifo', false, 'other'),
      ],
      CAP,
    );
    expect(names(plan.remove)).toEqual(['a', 'l']);
    expect(plan.kept).toEqual([{ path: 'big', bytes: CAP + 1 }]);
  });
});
