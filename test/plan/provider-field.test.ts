import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadPlan } from '../../src/plan/index.ts';
import type { PlanProblem } from '../../src/plan/problems.ts';
import { loadText, problemsOf, tempFiles, yaml } from './helpers.ts';

/** `provider` on the plan, a codon and a sentinel: validated at its path, inherited as docs/plans.md#providers says. */

function only(problems: readonly PlanProblem[], code: string, path: string): PlanProblem {
  const found = problems.filter((p) => p.code === code && p.path === path);
  expect(found, JSON.stringify(problems, null, 2)).toHaveLength(1);
  expect(found[0]!.severity).toBe('error');
  return found[0]!;
}

const SENTINEL = [
  '      - id: watch',
  '        model: claude-haiku-4-5',
  '        userPrompt: "{{events}}"',
  '        trigger: { type: event, eventTypes: [assistant.action] }',
];

describe('provider validation', () => {
  it('a URL with a key in it, a query, another scheme, a bad variable name and an unknown field, each at its path', async () => {
    const problems = await problemsOf(
      yaml(
        'name: x',
        'provider: { baseUrl: "https://user:secret@gw.example.com" }',
        'codons:',
        '  - id: a',
        '    prompt: go',
        '    provider: { baseUrl: "https://gw.example.com/v1?key=1", apiKeyEnv: "1BAD" }',
        '  - id: b',
        '    prompt: go',
        '    provider: { baseUrl: "ftp://gw.example.com", apiKey: x }',
        '    sentinels:',
        ...SENTINEL,
        '        provider: { apiKeyEnv: CHEAP_KEY }',
      ),
    );
    const credentials = only(problems, 'INVALID_VALUE', 'provider.baseUrl');
    expect(credentials.message).toContain('must not carry credentials');
    expect(credentials.message).not.toContain('secret');
    expect(credentials.hint).toContain('apiKeyEnv');
    expect(only(problems, 'INVALID_VALUE', 'codons[0].provider.baseUrl').message).toContain('query');
    only(problems, 'INVALID_VALUE', 'codons[0].provider.apiKeyEnv');
    expect(only(problems, 'INVALID_VALUE', 'codons[1].provider.baseUrl').message).toContain('http or https');
    only(problems, 'UNKNOWN_FIELD', 'codons[1].provider.apiKey');
    expect(problems.some((p) => p.path === 'codons[1].sentinels[0].provider.baseUrl')).toBe(true);
  });

  it('a sentinel file is checked too', async () => {
    const problems = await problemsOf(
      yaml('name: x', 'codons:', '  - id: a', '    prompt: go', '    sentinels: [{ file: watch.yaml }]'),
      {
        'watch.yaml': yaml(
          'id: watch',
          'model: claude-haiku-4-5',
          'userPrompt: "{{events}}"',
          'trigger: { type: event, eventTypes: [assistant.action] }',
          'provider: { baseUrl: "not a url" }',
        ),
      },
    );
    expect(problems.some((p) => p.path.endsWith('provider.baseUrl') && /not a URL/.test(p.message))).toBe(
      true,
    );
  });
});

describe('provider resolution', () => {
  const plan = yaml(
    'name: x',
    'provider: { baseUrl: "https://plan.example.com", apiKeyEnv: PLAN_KEY }',
    'sentinels:',
    '  named:',
    '    model: claude-haiku-4-5',
    '    userPrompt: "{{events}}"',
    '    trigger: { type: event, eventTypes: [assistant.action] }',
    'codons:',
    '  - id: inherits',
    '    prompt: go',
    '    sentinels:',
    '      - named',
    ...SENTINEL,
    '        provider: { baseUrl: "https://cheap.example.com" }',
    '  - id: own',
    '    prompt: go',
    '    provider: { baseUrl: "https://codon.example.com" }',
    '    sentinels:',
    '      - id: plain',
    '        model: claude-haiku-4-5',
    '        userPrompt: "{{events}}"',
    '        trigger: { type: event, eventTypes: [assistant.action] }',
  );
  const providerOf = (entry: { status: string; sentinel?: { provider?: unknown } }) =>
    entry.sentinel?.provider;

  it("a codon's or sentinel's own provider first, else the plan's (a sentinel does not take its codon's)", async () => {
    const result = await loadText(plan);
    if (!result.ok) throw new Error(JSON.stringify(result.problems));
    const [inherits, own] = result.plan.codons;
    const planProvider = { baseUrl: 'https://plan.example.com', apiKeyEnv: 'PLAN_KEY' };
    expect(inherits!.provider).toEqual(planProvider);
    expect(inherits!.sentinels.map(providerOf)).toEqual([
      planProvider,
      { baseUrl: 'https://cheap.example.com' },
    ]);
    expect(own!.provider).toEqual({ baseUrl: 'https://codon.example.com' });
    expect(own!.sentinels.map(providerOf)).toEqual([planProvider]);
  });

  it("--provider-base-url (serverProvider) replaces the plan's provider but not a codon's or sentinel's own", async () => {
    const dir = await tempFiles({ 'plan.yaml': plan });
    const result = await loadPlan(join(dir, 'plan.yaml'), { serverProvider: true });
    if (!result.ok) throw new Error(JSON.stringify(result.problems));
    const [inherits, own] = result.plan.codons;
    expect(inherits!.provider).toBeUndefined();
    expect(inherits!.sentinels.map(providerOf)).toEqual([
      undefined,
      { baseUrl: 'https://cheap.example.com' },
    ]);
    expect(own!.provider).toEqual({ baseUrl: 'https://codon.example.com' });
    expect(own!.sentinels.map(providerOf)).toEqual([undefined]);
  });
});
