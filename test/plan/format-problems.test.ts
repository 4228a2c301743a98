import { describe, expect, it } from 'vitest';
import { formatProblems } from '../../src/plan/format-problems.ts';
import type { PlanProblem } from '../../src/plan/problems.ts';

const problem = (over: Partial<PlanProblem>): PlanProblem => ({
  code: 'DUPLICATE_ID',
  severity: 'error',
  file: '/work/plans/demo.yaml',
  path: 'codons[1].id',
  line: 7,
  column: 9,
  message: 'Id "a" is already used by codons[0].',
  hint: 'Rename one of them.',
  ...over,
});

describe('formatProblems', () => {
  it('writes file:line:column, severity, code, path, message and hint, then a count', () => {
    const text = formatProblems(
      [
        problem({}),
        problem({
          code: 'SENTINEL_FILE_INVALID',
          severity: 'warning',
          file: '/work/plans/sentinels/s.yaml',
          path: '',
          line: undefined,
          column: undefined,
          message: 'Broken.',
          hint: 'Fix it.',
        }),
      ],
      'plans/demo.yaml',
      '/work',
    );
    expect(text).toBe(
      [
        'plans/demo.yaml:7:9 - error DUPLICATE_ID at codons[1].id: Id "a" is already used by codons[0].',
        '  hint: Rename one of them.',
        'plans/sentinels/s.yaml - warning SENTINEL_FILE_INVALID: Broken.',
        '  hint: Fix it.',
        '1 error, 1 warning',
      ].join('\n'),
    );
  });

  it('prints nothing for no problems', () => {
    expect(formatProblems([], 'plan.yaml')).toBe('');
  });
});
