import { describe, expect, it } from 'vitest';
import type { PlanProblem } from '../../src/plan/problems.ts';
import { loadText, problemsOf, yaml } from './helpers.ts';

/** Validation of the fields for unattended runs: each mistake is reported at its path with a hint. */

const codon = (...lines: string[]) => yaml('name: x', 'codons:', '  - id: a', '    prompt: go', ...lines);

/** The loaded plan of a valid plan text (its problems, when it has some, fail the test). */
async function loadedPlan(text: string) {
  const result = await loadText(text);
  if (!result.ok) throw new Error(JSON.stringify(result.problems));
  return result.plan;
}

function only(problems: readonly PlanProblem[], code: string, path: string): PlanProblem {
  const found = problems.filter((p) => p.code === code && p.path === path);
  expect(found, JSON.stringify(problems, null, 2)).toHaveLength(1);
  expect(found[0]!.severity).toBe('error');
  expect(found[0]!.hint?.length ?? 0).toBeGreaterThan(0);
  return found[0]!;
}

describe('budget', () => {
  it('a negative cost, a fractional token count and an unknown limit, each at its path', async () => {
    const problems = await problemsOf(
      codon('    budget:', '      maxCostUsd: -1', '      maxOutputTokens: 1.5', '      maxTokens: 3'),
    );
    expect(only(problems, 'INVALID_VALUE', 'codons[0].budget.maxCostUsd').line).toBe(6);
    only(problems, 'WRONG_TYPE', 'codons[0].budget.maxOutputTokens');
    expect(only(problems, 'UNKNOWN_FIELD', 'codons[0].budget.maxTokens').hint).toContain('maxOutputTokens');
  });

  it('a budget that sets no limit', async () => {
    const problems = await problemsOf(yaml('name: x', 'budget: {}', 'codons: []'));
    expect(only(problems, 'BUDGET_EMPTY', 'budget').hint).toContain('maxCostUsd');
  });

  it('a loop budget is checked too', async () => {
    const problems = await problemsOf(
      yaml(
        'name: x',
        'codons:',
        '  - loop:',
        '      id: l',
        '      iterations: 2',
        '      budget: { maxDurationMs: 0 }',
        '      codons: [{ id: a, prompt: go }]',
      ),
    );
    only(problems, 'INVALID_VALUE', 'codons[0].loop.budget.maxDurationMs');
  });
});

describe('onFailure and fallbackModel', () => {
  it('an unknown `then`, zero attempts and a backoff range upside down', async () => {
    const problems = await problemsOf(
      yaml(
        'name: x',
        'onFailure:',
        '  retry: { maxAttempts: 0, backoffMs: 5000, maxBackoffMs: 100 }',
        '  then: retry',
        'codons: []',
      ),
    );
    only(problems, 'INVALID_VALUE', 'onFailure.retry.maxAttempts');
    only(problems, 'INVALID_VALUE', 'onFailure.then');
  });

  it('maxBackoffMs below backoffMs alone', async () => {
    const problems = await problemsOf(
      codon('    onFailure:', '      retry: { maxAttempts: 3, backoffMs: 5000, maxBackoffMs: 100 }'),
    );
    only(problems, 'BACKOFF_RANGE', 'codons[0].onFailure.retry.maxBackoffMs');
  });

  it('an empty fallbackModel', async () => {
    const problems = await problemsOf(codon('    fallbackModel: ""'));
    expect(problems.some((p) => p.path === 'codons[0].fallbackModel')).toBe(true);
  });

  it('the effective policy: the codon over the plan, the default idle without retry', async () => {
    const plan = await loadedPlan(
      yaml(
        'name: x',
        'fallbackModel: small',
        'onFailure: { retry: { maxAttempts: 3 }, then: continue }',
        'defaults: { stallTimeoutMs: 60000 }',
        'codons:',
        '  - { id: a, prompt: go }',
        '  - { id: b, prompt: go, onFailure: { then: abort }, stallTimeoutMs: 5000, fallbackModel: tiny }',
      ),
    );
    const [a, b] = plan.codons;
    expect(a).toMatchObject({
      onFailure: { retry: { maxAttempts: 3, backoffMs: 5000, maxBackoffMs: 300_000 }, then: 'continue' },
      fallbackModel: 'small',
      stallTimeoutMs: 60_000,
    });
    expect(b).toMatchObject({ onFailure: { then: 'abort' }, fallbackModel: 'tiny', stallTimeoutMs: 5000 });
    expect(b?.onFailure.retry).toBeUndefined();
  });
});

describe('onUsageLimit', () => {
  it('refuses an unknown word, an unknown agent, a negative wait and unknown keys, each at its place', async () => {
    const problems = await problemsOf(
      yaml(
        'name: x',
        'onUsageLimit: later',
        'codons:',
        '  - id: a',
        '    prompt: go',
        '    onUsageLimit: { fallbackAgent: { agent: cursor }, maxWaitMs: -1, sleep: true }',
      ),
    );
    expect(problems.some((p) => p.path === 'onUsageLimit' && p.severity !== 'warning')).toBe(true);
    expect(
      problems.some((p) => p.path.startsWith('codons[0].onUsageLimit') && p.severity !== 'warning'),
    ).toBe(true);
  });

  it("warns of a fallbackAgent that is the codon's own agent and model", async () => {
    const problems = await problemsOf(
      yaml(
        'name: x',
        'agent: codex',
        'model: gpt-5',
        'onUsageLimit: { fallbackAgent: { agent: codex } }',
        'codons:',
        '  - { id: a, prompt: go }',
        '  - { id: b, prompt: go, onUsageLimit: { fallbackAgent: { agent: codex, model: gpt-5-mini } } }',
      ),
    );
    const warned = problems.filter((p) => p.code === 'FIELD_HAS_NO_EFFECT');
    expect(warned.map((p) => [p.path, p.severity])).toEqual([['codons[0].id', 'warning']]);
    expect(warned[0]?.message).toBe(
      'Codon "a"\'s fallbackAgent is its own agent and model (codex, gpt-5): it would meet the same usage limit.',
    );
  });

  it('warns of a fallbackAgent of another kind without a model where the codon has one', async () => {
    const problems = await problemsOf(
      yaml(
        'name: x',
        'agent: builtin',
        'model: claude-sonnet-4-5',
        'onUsageLimit: { fallbackAgent: { agent: codex } }',
        'codons:',
        '  - { id: a, prompt: go }',
      ),
    );
    const warned = problems.filter((p) => p.code === 'FIELD_HAS_NO_EFFECT');
    expect(warned.map((p) => p.message)).toEqual([
      'Codon "a"\'s fallbackAgent codex names no model: it would run with claude-sonnet-4-5, the model meant for builtin.',
    ]);
  });

  it('the effective policy: the codon over the plan, else wait with its defaults', async () => {
    const plan = await loadedPlan(
      yaml(
        'name: x',
        'onUsageLimit: { fallbackAgent: { agent: gemini }, maxWaitMs: 60000 }',
        'codons:',
        '  - { id: a, prompt: go }',
        '  - { id: b, prompt: go, onUsageLimit: fail }',
      ),
    );
    const [a, b] = plan.codons;
    expect(a?.onUsageLimit).toEqual({
      then: 'wait',
      fallbackAgent: { agent: 'gemini' },
      maxWaitMs: 60_000,
      marginMs: 60_000,
      unknownResetWaitMs: 900_000,
      countWait: false,
    });
    expect(b?.onUsageLimit).toMatchObject({ then: 'fail' });
    expect(b?.onUsageLimit.fallbackAgent).toBeUndefined();
  });
});

describe('stallTimeoutMs', () => {
  it('zero and text are refused', async () => {
    const problems = await problemsOf(
      yaml(
        'name: x',
        'defaults: { stallTimeoutMs: soon }',
        'codons: [{ id: a, prompt: go, stallTimeoutMs: 0 }]',
      ),
    );
    only(problems, 'WRONG_TYPE', 'defaults.stallTimeoutMs');
    only(problems, 'INVALID_VALUE', 'codons[0].stallTimeoutMs');
  });
});

describe('verify and onVerifyFailure', () => {
  it('a gate without a command, a cwd out of the agent root, an empty list', async () => {
    const problems = await problemsOf(
      yaml(
        'name: x',
        'codons:',
        '  - id: a',
        '    prompt: go',
        '    verify:',
        '      - { timeoutMs: 1000 }',
        '      - { run: npm test, cwd: ../elsewhere }',
        '  - { id: b, prompt: go, verify: [] }',
      ),
    );
    only(problems, 'MISSING_FIELD', 'codons[0].verify[0].run');
    only(problems, 'PATH_ESCAPES', 'codons[0].verify[1].cwd');
    expect(problems.some((p) => p.path === 'codons[1].verify')).toBe(true);
  });

  it('maxRounds out of range and feedback not a boolean', async () => {
    const problems = await problemsOf(
      codon('    verify: [{ run: "true" }]', '    onVerifyFailure: { feedback: yes please, maxRounds: 0 }'),
    );
    only(problems, 'WRONG_TYPE', 'codons[0].onVerifyFailure.feedback');
    only(problems, 'INVALID_VALUE', 'codons[0].onVerifyFailure.maxRounds');
  });

  it('gates are loaded with their defaults and a normalized cwd', async () => {
    const plan = await loadedPlan(
      codon('    verify: [{ run: npm test, cwd: ./pkg/ }]', '    onVerifyFailure: { feedback: true }'),
    );
    expect(plan.codons[0]).toMatchObject({
      verify: [{ run: 'npm test', timeoutMs: 600_000, cwd: 'pkg' }],
      onVerifyFailure: { feedback: true, maxRounds: 3 },
    });
  });
});

describe('fields that do nothing as written (warnings: the plan still runs)', () => {
  it('onVerifyFailure without verify gates', async () => {
    const problems = await problemsOf(codon('    onVerifyFailure: { feedback: true }'));
    const found = problems.filter((p) => p.code === 'FIELD_HAS_NO_EFFECT');
    expect(found).toMatchObject([{ severity: 'warning', path: 'codons[0].onVerifyFailure', line: 5 }]);
    expect(found[0]?.hint).toContain('verify');
  });

  it('a fallbackModel equal to the model the codon uses (its own, or the plan one)', async () => {
    const problems = await problemsOf(
      yaml(
        'name: x',
        'model: m1',
        'fallbackModel: m1',
        'codons:',
        '  - { id: a, prompt: go }',
        '  - { id: b, prompt: go, model: m2, fallbackModel: m2 }',
        '  - { id: c, prompt: go, model: m3 }',
      ),
    );
    expect(problems.filter((p) => p.code === 'FIELD_HAS_NO_EFFECT').map((p) => [p.severity, p.path])).toEqual(
      [
        ['warning', 'codons[0].id'],
        ['warning', 'codons[1].fallbackModel'],
      ],
    );
  });
});

describe('agentConfig and claudeConfig user where no codon runs an agent they apply to (warnings)', () => {
  const noEffect = async (...lines: string[]) =>
    (await problemsOf(yaml(...lines)))
      .filter((p) => p.code === 'FIELD_HAS_NO_EFFECT')
      .map((p) => [p.severity, p.path, p.message]);

  it('a plan of builtin codons: both warn, at their lines', async () => {
    const problems = await problemsOf(
      yaml('name: x', 'agentConfig: user', 'claudeConfig: user', 'codons: [{ id: a, prompt: go }]'),
    );
    expect(problems.filter((p) => p.code === 'FIELD_HAS_NO_EFFECT')).toMatchObject([
      {
        severity: 'warning',
        path: 'agentConfig',
        line: 2,
        message: 'agentConfig: user has no effect: no codon runs codex, gemini or opencode.',
      },
      {
        severity: 'warning',
        path: 'claudeConfig',
        line: 3,
        message: 'claudeConfig: user has no effect: no codon runs claude-code.',
      },
    ]);
  });

  it('without claudeConfig, agentConfig applies to claude-code too', async () => {
    expect(await noEffect('name: x', 'agentConfig: user', 'codons: [{ id: a, prompt: go }]')).toEqual([
      [
        'warning',
        'agentConfig',
        'agentConfig: user has no effect: no codon runs codex, gemini, opencode or claude-code.',
      ],
    ]);
    expect(
      await noEffect('name: x', 'agentConfig: user', 'codons: [{ id: a, prompt: go, agent: claude-code }]'),
    ).toEqual([]);
  });

  it("a codon's own agent counts; isolated and a plan of such agents say nothing", async () => {
    const codons = 'codons: [{ id: a, prompt: go }, { id: b, prompt: go, agent: gemini }]';
    expect(await noEffect('name: x', 'agentConfig: user', codons)).toEqual([]);
    expect(
      await noEffect('name: x', 'agent: opencode', 'agentConfig: user', 'codons: [{ id: a, prompt: go }]'),
    ).toEqual([]);
    expect(await noEffect('name: x', 'agentConfig: isolated', 'codons: [{ id: a, prompt: go }]')).toEqual([]);
    // An invalid agent (reported as such) leaves the question open: no warning.
    expect(
      await noEffect('name: x', 'agentConfig: user', 'codons: [{ id: a, prompt: go, agent: kodex }]'),
    ).toEqual([]);
  });
});

describe('system prompts', () => {
  it('an empty systemPrompt or appendSystemPrompt is refused; the codon one wins over the plan one', async () => {
    const problems = await problemsOf(
      yaml('name: x', 'systemPrompt: ""', 'codons: [{ id: a, prompt: go, appendSystemPrompt: "" }]'),
    );
    expect(problems.some((p) => p.path === 'systemPrompt' && p.severity === 'error')).toBe(true);
    expect(problems.some((p) => p.path === 'codons[0].appendSystemPrompt' && p.severity === 'error')).toBe(
      true,
    );
    const plan = await loadedPlan(
      yaml(
        'name: x',
        'appendSystemPrompt: plan rules',
        'codons: [{ id: a, prompt: go }, { id: b, prompt: go, appendSystemPrompt: codon rules, systemPrompt: own }]',
      ),
    );
    expect(plan.codons.map((c) => [c.systemPrompt, c.appendSystemPrompt])).toEqual([
      [undefined, 'plan rules'],
      ['own', 'codon rules'],
    ]);
  });
});

describe('claudeConfig', () => {
  it('isolated or user, nothing else', async () => {
    const problems = await problemsOf(yaml('name: x', 'claudeConfig: mine', 'codons: []'));
    expect(problems.filter((p) => p.path === 'claudeConfig').map((p) => p.code)).toEqual(['INVALID_VALUE']);
    expect(await problemsOf(yaml('name: x', 'claudeConfig: user', 'codons: []'))).toEqual([]);
  });
});

describe('loop until', () => {
  it('until: verify needs gates on the loop’s last codon', async () => {
    const problems = await problemsOf(
      yaml(
        'name: x',
        'codons:',
        '  - loop:',
        '      id: l',
        '      iterations: 5',
        '      until: verify',
        '      codons:',
        '        - { id: a, prompt: go, verify: [{ run: "true" }] }',
        '        - { id: b, prompt: go }',
      ),
    );
    expect(only(problems, 'UNTIL_WITHOUT_VERIFY', 'codons[0].loop.until').hint).toContain('verify');
  });

  it('an unknown until value', async () => {
    const problems = await problemsOf(
      yaml(
        'name: x',
        'codons:',
        '  - loop: { id: l, iterations: 2, until: green, codons: [{ id: a, prompt: go }] }',
      ),
    );
    only(problems, 'INVALID_VALUE', 'codons[0].loop.until');
  });
});

describe('notify', () => {
  it('a URL that is not http(s), an unknown event, an empty event list', async () => {
    const problems = await problemsOf(
      yaml(
        'name: x',
        'notify:',
        '  - { webhook: "ftp://example.com/x" }',
        '  - { webhook: "http://127.0.0.1:9/x", on: [run-done] }',
        '  - { webhook: "http://127.0.0.1:9/x", on: [] }',
        'codons: []',
      ),
    );
    only(problems, 'INVALID_URL', 'notify[0].webhook');
    expect(only(problems, 'INVALID_VALUE', 'notify[1].on[0]').message).toContain('Item 0 of "on"');
    expect(problems.some((p) => p.path === 'notify[2].on')).toBe(true);
  });
});

describe('outputFiles', () => {
  it('a glob leaving the agent root, an absolute one and an empty one, each at its path', async () => {
    const problems = await problemsOf(codon('    outputFiles: ["../x/*", "/etc/*", "", "{a,..}/y"]'));
    expect(only(problems, 'PATH_ESCAPES', 'codons[0].outputFiles[0]').line).toBe(5);
    only(problems, 'PATH_ESCAPES', 'codons[0].outputFiles[1]');
    expect(problems.some((p) => p.path === 'codons[0].outputFiles[2]')).toBe(true);
    only(problems, 'PATH_ESCAPES', 'codons[0].outputFiles[3]');
  });

  it('valid globs reach the runtime codon normalized; absent is none', async () => {
    const plan = await loadedPlan(
      yaml(
        'name: x',
        'codons:',
        '  - id: a',
        '    prompt: go',
        '    outputFiles: ["./dist/**", "*.md"]',
        '  - id: b',
        '    prompt: go',
      ),
    );
    expect(plan.codons.map((c) => c.outputFiles)).toEqual([['dist/**', '*.md'], []]);
  });
});

describe('a word or an object', () => {
  it('an object meant for onUsageLimit or sandbox is judged as the object, each field at its place', async () => {
    const problems = await problemsOf(
      yaml(
        'name: x',
        'sandbox: { mode: maybe }',
        'codons:',
        '  - id: a',
        '    prompt: go',
        '    onUsageLimit: { fallbackAgent: { agent: cursor }, maxWaitMs: -1 }',
      ),
    );
    expect(problems.map((p) => p.path).sort()).toEqual([
      'codons[0].onUsageLimit.fallbackAgent.agent',
      'codons[0].onUsageLimit.maxWaitMs',
      'sandbox.mode',
    ]);
  });
});

describe('approval', () => {
  it('a codon over the plan, the plan over none; in loops each iteration', async () => {
    const plan = await loadedPlan(
      yaml(
        'name: x',
        'approval: required',
        'codons:',
        '  - { id: a, prompt: go }',
        '  - { id: b, prompt: go, approval: none }',
        '  - loop: { id: l, iterations: 2, codons: [{ id: c, prompt: go }] }',
      ),
    );
    expect(plan.codons.map((c) => [c.id, c.approval])).toEqual([
      ['a', 'required'],
      ['b', 'none'],
      ['c#0', 'required'],
      ['c#1', 'required'],
    ]);
    expect((await loadedPlan(codon())).codons[0]?.approval).toBe('none');
  });

  it('a value other than required or none, at its field, with the word meant', async () => {
    const problems = await problemsOf(codon('    approval: requird'));
    expect(only(problems, 'INVALID_VALUE', 'codons[0].approval').hint).toContain('"required"');
    only(await problemsOf(yaml('name: x', 'approval: yes', 'codons: []')), 'INVALID_VALUE', 'approval');
  });
});
