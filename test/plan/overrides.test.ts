import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseVars } from '../../src/clients/cli/run/parse-flags.ts';
import { loadPlan } from '../../src/plan/index.ts';
import { tempFiles, yaml } from './helpers.ts';

const PLAN = yaml(
  'name: p',
  'defaults:',
  '  env: { KEEP: plan, OVER: plan }',
  'codons:',
  '  - { id: a, prompt: go }',
  '  - { id: b, prompt: go, agent: codex, env: { OVER: codon } }',
);

async function load(plan: string, overrides: Parameters<typeof loadPlan>[1]) {
  const dir = await tempFiles({ 'plan.yaml': plan });
  return loadPlan(join(dir, 'plan.yaml'), overrides);
}

describe('run --agent and --var (batch jobs set them)', () => {
  it("--agent is the plan's agent: a codon with its own keeps it", async () => {
    const result = await load(PLAN, { agent: 'gemini' });
    if (!result.ok) throw new Error(JSON.stringify(result.problems));
    expect(result.plan.codons.map((c) => c.agent)).toEqual(['gemini', 'codex']);
  });

  it("--agent is checked with the plan: a continued session cannot move to another codon's agent", async () => {
    const plan = yaml(
      'name: p',
      'codons:',
      '  - { id: a, prompt: go, agent: codex }',
      '  - { id: b, prompt: go, continuation: continue-previous }',
    );
    expect((await load(plan, {})).ok).toBe(false);
    const result = await load(plan, { agent: 'codex' });
    expect(result.ok).toBe(true);
  });

  it('--var sets every codon’s environment over defaults.env, under a codon’s own env', async () => {
    const result = await load(PLAN, { env: { OVER: 'var', NEW: 'var' } });
    if (!result.ok) throw new Error(JSON.stringify(result.problems));
    expect(result.plan.codons.map((c) => c.env)).toEqual([
      { KEEP: 'plan', OVER: 'var', NEW: 'var' },
      { KEEP: 'plan', OVER: 'codon', NEW: 'var' },
    ]);
  });

  it('parseVars takes NAME=VALUE (the value may hold =) and refuses the rest by name', () => {
    expect(parseVars(['A=1', 'B=x=y', 'C='])).toEqual({ ok: true, value: { A: '1', B: 'x=y', C: '' } });
    for (const bad of ['A', '1A=x', '=x', 'A-B=x']) {
      const parsed = parseVars([bad]);
      expect(parsed.ok).toBe(false);
      if (!parsed.ok) expect(parsed.message).toContain(`"${bad}"`);
    }
  });
});
