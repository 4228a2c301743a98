import { describe, expect, it } from 'vitest';
import { loadText, problemsOf, yaml } from './helpers.ts';

describe('plan workspace:', () => {
  it('is carried into the loaded plan as written', async () => {
    const result = await loadText(yaml('name: x', 'workspace: ../repo@v1', 'codons: []'));
    expect(result.ok && result.plan.workspace).toBe('../repo@v1');
  });

  it('an empty workspace and a non-string one are refused at their path', async () => {
    for (const value of ['""', '[a]']) {
      const problems = await problemsOf(yaml('name: x', `workspace: ${value}`, 'codons: []'));
      expect(problems.filter((p) => p.path === 'workspace' && p.severity === 'error')).toHaveLength(1);
    }
  });
});
