import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { runBranchName, runIdOfBranch } from '../../../src/execution/checkpoints/run-branch.ts';

const ids: Array<[string, string]> = [
  ['run-1', 'run/run-1'],
  ['3f2a_b', 'run/3f2a_b'],
  ['2026-01-02T03:04:05Z', 'run/2026-01-02T03%3A04%3A05Z'],
  ['a/b', 'run/a%2Fb'],
  ['.hidden', 'run/%2Ehidden'],
  ['x.lock', 'run/x%2Elock'],
  ['a..b', 'run/a%2E%2Eb'],
  ['@', 'run/%40'],
  ['with space', 'run/with%20space'],
  ['ü', 'run/%C3%BC'],
];

describe('run branch names', () => {
  it.each(ids)('names run %j %s', (runId, branch) => {
    expect(runBranchName(runId)).toEqual({ ok: true, value: branch });
    expect(runIdOfBranch(branch)).toBe(runId);
    expect(runIdOfBranch(`refs/heads/${branch}`)).toBe(runId);
  });

  it('gives names git accepts as branches', () => {
    for (const [runId] of ids) {
      const name = runBranchName(runId);
      if (!name.ok) throw new Error(name.error.message);
      expect(() =>
        execFileSync('git', ['check-ref-format', '--branch', name.value], { stdio: 'pipe' }),
      ).not.toThrow();
    }
  });

  it.each([[''], ['x'.repeat(241)], ['界'.repeat(30)]])('refuses run id %#', (runId) => {
    const name = runBranchName(runId);
    expect(name.ok).toBe(false);
    if (!name.ok) expect(name.error.code).toBe('INVALID_INPUT');
  });

  it.each([['main'], ['refs/heads/main'], ['run/'], ['run/%ZZ'], ['runner/x']])(
    'reads %s as no run',
    (branch) => {
      expect(runIdOfBranch(branch)).toBeNull();
    },
  );
});
