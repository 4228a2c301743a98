import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadPlan } from '../../src/plan/index.ts';
import type { PlanProblem } from '../../src/plan/problems.ts';
import { loadText, problemsOf, tempFiles, yaml } from './helpers.ts';

type Expected = Pick<PlanProblem, 'code' | 'path'> & Partial<PlanProblem> & { hintHas?: string };

/** The one problem with this code and path, checked field by field. */
function expectProblem(problems: readonly PlanProblem[], expected: Expected): PlanProblem {
  const found = problems.filter((p) => p.code === expected.code && p.path === expected.path);
  expect(found, `${expected.code} at ${expected.path} in ${JSON.stringify(problems, null, 2)}`).toHaveLength(
    1,
  );
  const { hintHas, ...fields } = expected;
  const problem = found[0]!;
  expect(problem).toMatchObject({ severity: 'error', ...fields });
  if (hintHas !== undefined) expect(problem.hint).toContain(hintHas);
  expect(problem.message.length).toBeGreaterThan(0);
  return problem;
}

describe('reading and parsing', () => {
  it('reports a missing plan file', async () => {
    const dir = await tempFiles({});
    const result = await loadPlan(join(dir, 'nope.yaml'));
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.problems).toEqual([
      expect.objectContaining({
        code: 'FILE_NOT_FOUND',
        path: '',
        file: join(dir, 'nope.yaml'),
        severity: 'error',
      }),
    ]);
  });

  it('reports YAML syntax errors at their position', async () => {
    const problems = await problemsOf(
      yaml('name: x', 'codons:', '  - id: a', '    prompt: [unclosed', '  - id: b'),
    );
    expect(problems.length).toBeGreaterThan(0);
    expect(problems.every((p) => p.code === 'YAML_SYNTAX' && p.line !== undefined)).toBe(true);
  });

  it('reports a repeated key at its line', async () => {
    const problems = await problemsOf(yaml('name: x', 'name: y', 'codons: []'));
    expectProblem(problems, { code: 'YAML_SYNTAX', path: '', line: 2, column: 1, hintHas: 'repeated keys' });
  });

  it('reports an empty file', async () => {
    const problems = await problemsOf('# only a comment\n');
    expectProblem(problems, { code: 'EMPTY_FILE', path: '' });
  });

  it('reports a file that is not a mapping', async () => {
    const problems = await problemsOf(yaml('- id: a'));
    expectProblem(problems, { code: 'WRONG_TYPE', path: '', line: 1, column: 1 });
  });
});

describe('shape problems', () => {
  it('missing required field points at the enclosing mapping', async () => {
    const problems = await problemsOf(yaml('codons: []'));
    expectProblem(problems, {
      code: 'MISSING_FIELD',
      path: 'name',
      line: 1,
      column: 1,
      hintHas: 'Add "name"',
    });
  });

  it('unknown field suggests the closest name', async () => {
    const problems = await problemsOf(yaml('name: x', 'codons:', '  - id: a', '    promt: hi'));
    expectProblem(problems, {
      code: 'UNKNOWN_FIELD',
      path: 'codons[0].promt',
      line: 4,
      column: 5,
      hintHas: 'Did you mean "prompt"?',
    });
    expectProblem(problems, { code: 'PROMPT_MISSING', path: 'codons[0]', line: 3, column: 5 });
  });

  it('wrong type explains what YAML read', async () => {
    const problems = await problemsOf(
      yaml(
        'name: x',
        'codons:',
        '  - id: a',
        '    prompt: hi',
        '    timeoutMs: "10m"',
        '    env: { PORT: 3000 }',
      ),
    );
    expectProblem(problems, {
      code: 'WRONG_TYPE',
      path: 'codons[0].timeoutMs',
      line: 5,
      column: 16,
      hintHas: 'plain number',
    });
    expectProblem(problems, {
      code: 'WRONG_TYPE',
      path: 'codons[0].env.PORT',
      line: 6,
      column: 18,
      hintHas: '"3000"',
    });
  });

  it('enum value lists the allowed ones', async () => {
    const problems = await problemsOf(
      yaml('name: x', 'codons:', '  - id: a', '    prompt: hi', '    continuation: continue-prev'),
    );
    expectProblem(problems, {
      code: 'INVALID_VALUE',
      path: 'codons[0].continuation',
      line: 5,
      column: 19,
      hintHas: 'Did you mean "continue-previous"? Use one of: fresh, continue-previous',
    });
  });

  it('ids must match the safe pattern; # is reserved', async () => {
    const problems = await problemsOf(yaml('name: x', 'codons:', '  - id: "a#1"', '    prompt: hi'));
    expectProblem(problems, {
      code: 'INVALID_ID',
      path: 'codons[0].id',
      line: 3,
      column: 9,
      hintHas: '"#" is reserved',
    });
  });

  it('bad map keys point at the key', async () => {
    const problems = await problemsOf(yaml('name: x', 'defaults:', '  env:', '    my-var: x', 'codons: []'));
    expectProblem(problems, {
      code: 'INVALID_VALUE',
      path: 'defaults.env["my-var"]',
      line: 4,
      column: 5,
      message: '"my-var" is not a valid environment variable name.',
      hintHas: 'e.g. API_URL',
    });
  });

  it('agentRoot must be one directory name other than rigArchive', async () => {
    const problems = await problemsOf(yaml('name: x', 'agentRoot: rigArchive', 'codons: []'));
    expectProblem(problems, { code: 'INVALID_VALUE', path: 'agentRoot', line: 2, column: 12 });
  });

  it('picks the union branch that was meant: a copy step without `to`, a run step with a bad command', async () => {
    const problems = await problemsOf(
      yaml(
        'name: x',
        'codons:',
        '  - id: a',
        '    prompt: hi',
        '    rigSetup:',
        '      - copy: { from: a.txt }',
        '      - run: 5',
        '      - cwd: execution',
      ),
    );
    expectProblem(problems, {
      code: 'MISSING_FIELD',
      path: 'codons[0].rigSetup[0].copy.to',
      line: 6,
      column: 15,
    });
    expectProblem(problems, { code: 'WRONG_TYPE', path: 'codons[0].rigSetup[1].run', line: 7, column: 14 });
    expectProblem(problems, { code: 'MISSING_FIELD', path: 'codons[0].rigSetup[2].run', line: 8, column: 9 });
    expect(problems.filter((p) => p.code === 'UNKNOWN_FIELD')).toEqual([]);
  });

  it('a bad discriminator lists the types', async () => {
    const problems = await problemsOf(
      yaml(
        'name: x',
        'sentinels:',
        '  s:',
        '    model: m',
        '    userPrompt: u',
        '    trigger: { type: whenever }',
        'codons: []',
      ),
    );
    expectProblem(problems, {
      code: 'INVALID_VALUE',
      path: 'sentinels.s.trigger.type',
      line: 6,
      column: 22,
      hintHas: 'event, sequence',
    });
  });

  it('loops need iterations >= 1 and at least one codon', async () => {
    const problems = await problemsOf(
      yaml('name: x', 'codons:', '  - loop:', '      id: l', '      iterations: 0', '      codons: []'),
    );
    expectProblem(problems, {
      code: 'INVALID_VALUE',
      path: 'codons[0].loop.iterations',
      line: 5,
      column: 19,
    });
    expectProblem(problems, { code: 'INVALID_VALUE', path: 'codons[0].loop.codons', line: 6, column: 15 });
  });

  it('timeouts are capped where Node timers overflow', async () => {
    const problems = await problemsOf(yaml('name: x', 'defaults: { timeoutMs: 3000000000 }', 'codons: []'));
    expectProblem(problems, {
      code: 'INVALID_VALUE',
      path: 'defaults.timeoutMs',
      hintHas: 'a whole number from 1 to 2147483647',
    });
  });
});

describe('codon rules', () => {
  it('prompt and promptFile are exclusive', async () => {
    const problems = await problemsOf(
      yaml('name: x', 'codons:', '  - id: a', '    prompt: hi', '    promptFile: p.md'),
      { 'p.md': 'hello' },
    );
    expectProblem(problems, { code: 'PROMPT_CONFLICT', path: 'codons[0].promptFile', line: 5, column: 17 });
  });

  it('a codon needs a prompt, even when another field is also wrong', async () => {
    const problems = await problemsOf(yaml('name: x', 'codons:', '  - id: a', '    timeoutMs: 0'));
    expectProblem(problems, {
      code: 'PROMPT_MISSING',
      path: 'codons[0]',
      line: 3,
      column: 5,
      hintHas: 'promptFile',
    });
    expectProblem(problems, { code: 'INVALID_VALUE', path: 'codons[0].timeoutMs', line: 4, column: 16 });
  });

  it('ids are unique across codons and loops', async () => {
    const problems = await problemsOf(
      yaml(
        'name: x',
        'codons:',
        '  - id: a',
        '    prompt: hi',
        '  - loop:',
        '      id: a',
        '      iterations: 2',
        '      codons:',
        '        - id: b',
        '          prompt: hi',
        '        - id: b',
        '          prompt: hi',
      ),
    );
    expectProblem(problems, {
      code: 'DUPLICATE_ID',
      path: 'codons[1].loop.id',
      line: 6,
      column: 11,
      message: 'Id "a" is already used by codons[0].',
    });
    expectProblem(problems, {
      code: 'DUPLICATE_ID',
      path: 'codons[1].loop.codons[1].id',
      line: 11,
      column: 15,
    });
  });

  it('continue-previous is refused on the first codon', async () => {
    const problems = await problemsOf(
      yaml('name: x', 'codons:', '  - id: a', '    prompt: hi', '    continuation: continue-previous'),
    );
    expectProblem(problems, {
      code: 'CONTINUATION_WITHOUT_PREVIOUS',
      path: 'codons[0].continuation',
      line: 5,
      column: 19,
    });
  });

  it('continue-previous is refused on a loop that opens the plan', async () => {
    const problems = await problemsOf(
      yaml(
        'name: x',
        'codons:',
        '  - loop:',
        '      id: l',
        '      iterations: 2',
        '      codons:',
        '        - id: a',
        '          prompt: hi',
        '          continuation: continue-previous',
      ),
    );
    expectProblem(problems, {
      code: 'CONTINUATION_WITHOUT_PREVIOUS',
      path: 'codons[0].loop.codons[0].continuation',
      line: 9,
      column: 25,
      hintHas: 'defaults.continuation',
    });
  });

  it('a session cannot continue across agents, also across loop iterations', async () => {
    const problems = await problemsOf(
      yaml(
        'name: x',
        'agent: builtin',
        'codons:',
        '  - id: a',
        '    prompt: hi',
        '  - id: b',
        '    prompt: hi',
        '    agent: claude-code',
        '    continuation: continue-previous',
        '  - loop:',
        '      id: l',
        '      iterations: 2',
        '      codons:',
        '        - id: c',
        '          prompt: hi',
        '          agent: claude-code',
        '          continuation: continue-previous',
        '        - id: d',
        '          prompt: hi',
      ),
    );
    expectProblem(problems, {
      code: 'CONTINUATION_AGENT_MISMATCH',
      path: 'codons[1].continuation',
      line: 9,
      column: 19,
    });
    const wrap = expectProblem(problems, {
      code: 'CONTINUATION_AGENT_MISMATCH',
      path: 'codons[2].loop.codons[0].continuation',
    });
    expect(wrap.message).toContain('from the second iteration on');
  });

  it('loops do not nest', async () => {
    const problems = await problemsOf(
      yaml(
        'name: x',
        'codons:',
        '  - loop:',
        '      id: outer',
        '      iterations: 2',
        '      codons:',
        '        - loop: { id: inner, iterations: 2, codons: [{ id: a, prompt: hi }] }',
      ),
    );
    expect(problems).toEqual([
      expect.objectContaining({ code: 'NESTED_LOOP', path: 'codons[0].loop.codons[0]', line: 7, column: 11 }),
    ]);
  });

  it('paths may not escape the agent root', async () => {
    const problems = await problemsOf(
      yaml(
        'name: x',
        'codons:',
        '  - id: a',
        '    prompt: hi',
        '    rigSetup:',
        '      - copy: { from: data.txt, to: ../up }',
        '      - run: ls',
        '        cwd: /etc',
        '    archiveOnSuccess: ["build/**", "../secrets/*"]',
      ),
      { 'data.txt': 'x' },
    );
    expectProblem(problems, {
      code: 'PATH_ESCAPES',
      path: 'codons[0].rigSetup[0].copy.to',
      line: 6,
      column: 37,
    });
    expectProblem(problems, { code: 'PATH_ESCAPES', path: 'codons[0].rigSetup[1].cwd', line: 8, column: 14 });
    expectProblem(problems, {
      code: 'PATH_ESCAPES',
      path: 'codons[0].archiveOnSuccess[1]',
      line: 9,
      column: 36,
    });
  });
});

describe('files a plan names', () => {
  it('a missing prompt file', async () => {
    const problems = await problemsOf(
      yaml('name: x', 'codons:', '  - id: a', '    promptFile: prompts/a.md'),
    );
    expectProblem(problems, {
      code: 'FILE_NOT_FOUND',
      path: 'codons[0].promptFile',
      line: 4,
      column: 17,
      hintHas: 'relative to the plan',
    });
  });

  it('a prompt file that is a directory', async () => {
    const problems = await problemsOf(yaml('name: x', 'codons:', '  - id: a', '    promptFile: prompts'), {
      'prompts/a.md': 'x',
    });
    expectProblem(problems, { code: 'FILE_UNREADABLE', path: 'codons[0].promptFile', line: 4, column: 17 });
  });

  it('a prompt file with front matter and no prompt', async () => {
    const problems = await problemsOf(yaml('name: x', 'codons:', '  - id: a', '    promptFile: a.md'), {
      'a.md': '---\nname: A\n---\n\n',
    });
    expectProblem(problems, { code: 'PROMPT_EMPTY', path: 'codons[0].promptFile', line: 4, column: 17 });
  });

  it('problems inside a prompt file point into that file', async () => {
    const result = await loadText(yaml('name: x', 'codons:', '  - id: a', '    promptFile: a.md'), {
      'a.md': '---\nname: A\ntags: solo\n---\nDo it.\n',
    });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expectProblem(result.problems, {
      code: 'WRONG_TYPE',
      path: 'tags',
      file: join(result.dir, 'a.md'),
      line: 3,
      column: 7,
    });
  });

  it('a missing copy source', async () => {
    const problems = await problemsOf(
      yaml(
        'name: x',
        'codons:',
        '  - id: a',
        '    prompt: hi',
        '    rigSetup:',
        '      - copy: { from: fixtures, to: . }',
      ),
    );
    expectProblem(problems, {
      code: 'FILE_NOT_FOUND',
      path: 'codons[0].rigSetup[0].copy.from',
      line: 6,
      column: 23,
    });
  });

  it('a missing template of an inline sentinel is an error', async () => {
    const problems = await problemsOf(
      yaml(
        'name: x',
        'sentinels:',
        '  s:',
        '    model: m',
        '    userPrompt: { file: user.md }',
        '    trigger: { type: event, eventTypes: [tool.result] }',
        'codons: []',
      ),
    );
    expectProblem(problems, {
      code: 'FILE_NOT_FOUND',
      path: 'sentinels.s.userPrompt.file',
      line: 5,
      column: 25,
    });
  });
});

const SENTINEL = yaml(
  'id: watch',
  'model: claude-haiku-4-5',
  'userPrompt: Look at {{events}}',
  'trigger: { type: event, eventTypes: [tool.result] }',
);

describe('sentinel references', () => {
  it('an unknown sentinel id suggests a declared one', async () => {
    const problems = await problemsOf(
      yaml(
        'name: x',
        'sentinels:',
        '  watcher: { file: s.yaml }',
        'codons:',
        '  - id: a',
        '    prompt: hi',
        '    sentinels: [watchr]',
      ),
      { 's.yaml': SENTINEL },
    );
    expectProblem(problems, {
      code: 'UNKNOWN_SENTINEL',
      path: 'codons[0].sentinels[0]',
      line: 7,
      column: 17,
      hintHas: 'Did you mean "watcher"?',
    });
  });

  it('the same sentinel twice on a codon', async () => {
    const problems = await problemsOf(
      yaml(
        'name: x',
        'codons:',
        '  - id: a',
        '    prompt: hi',
        '    sentinels:',
        '      - file: s.yaml',
        '      - file: s.yaml',
      ),
      { 's.yaml': SENTINEL },
    );
    expectProblem(problems, {
      code: 'DUPLICATE_SENTINEL',
      path: 'codons[0].sentinels[1]',
      line: 7,
      column: 9,
    });
  });

  it('an inline named sentinel whose id differs from its key', async () => {
    const problems = await problemsOf(
      yaml(
        'name: x',
        'sentinels:',
        '  s:',
        '    id: t',
        '    model: m',
        '    userPrompt: u',
        '    trigger: { type: event, eventTypes: [tool.result] }',
        'codons: []',
      ),
    );
    expectProblem(problems, { code: 'SENTINEL_ID_MISMATCH', path: 'sentinels.s.id', line: 4, column: 9 });
  });

  it('an unknown event type is a warning with a suggestion', async () => {
    const result = await loadText(
      yaml(
        'name: x',
        'codons:',
        '  - id: a',
        '    prompt: hi',
        '    sentinels:',
        '      - id: s',
        '        model: m',
        '        userPrompt: u',
        '        trigger: { type: event, eventTypes: [tool.results] }',
      ),
    );
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expectProblem(result.warnings, {
      code: 'UNKNOWN_EVENT_TYPE',
      severity: 'warning',
      path: 'codons[0].sentinels[0].trigger.eventTypes[0]',
      line: 9,
      column: 46,
      hintHas: 'Did you mean "tool.result"?',
    });
  });

  it('an invalid regex condition', async () => {
    const problems = await problemsOf(
      yaml(
        'name: x',
        'sentinels:',
        '  s:',
        '    model: m',
        '    userPrompt: u',
        '    trigger:',
        '      type: event',
        '      eventTypes: [tool.result]',
        '      conditions: [{ path: data.result, op: regex, value: "(open" }]',
        'codons: []',
      ),
    );
    expectProblem(problems, {
      code: 'INVALID_REGEX',
      path: 'sentinels.s.trigger.conditions[0].value',
      line: 9,
      column: 59,
    });
  });

  it('structured output needs an object schema; output files stay in the sentinel directory', async () => {
    const problems = await problemsOf(
      yaml(
        'name: x',
        'sentinels:',
        '  s:',
        '    model: m',
        '    userPrompt: u',
        '    trigger: { type: event, eventTypes: [tool.result] }',
        '    output: { type: structured, schema: { type: string } }',
        '    outputFiles: { log: ../../escape.log }',
        'codons: []',
      ),
    );
    expectProblem(problems, {
      code: 'INVALID_VALUE',
      path: 'sentinels.s.output.schema',
      line: 7,
      column: 41,
    });
    expectProblem(problems, {
      code: 'PATH_ESCAPES',
      path: 'sentinels.s.outputFiles.log',
      line: 8,
      column: 25,
    });
  });
});

describe('sentinel files that cannot be loaded are errors, as inline mistakes are (trial 17b M1)', () => {
  it('a missing file: an error where the plan names it', async () => {
    const result = await loadText(
      yaml('name: x', 'codons:', '  - id: a', '    prompt: hi', '    sentinels:', '      - file: gone.yaml'),
    );
    expect(result.ok).toBe(false);
    if (result.ok) return;
    const problem = expectProblem(result.problems, {
      code: 'SENTINEL_FILE_NOT_FOUND',
      path: 'codons[0].sentinels[0].file',
      line: 6,
      column: 15,
    });
    expect(problem.message).toContain(join(result.dir, 'gone.yaml'));
  });

  it('an invalid file: its problems point into it, once, however many codons use it', async () => {
    const result = await loadText(
      yaml(
        'name: x',
        'sentinels:',
        '  bad: { file: bad.yaml, failCodonOnLoadError: true }',
        'codons:',
        '  - id: a',
        '    prompt: hi',
        '    sentinels: [bad]',
        '  - id: b',
        '    prompt: hi',
        '    sentinels: [bad]',
      ),
      {
        'bad.yaml': yaml(
          'id: bad',
          'model: m',
          'userPrompt: u',
          'trigger: { type: event, eventTypes: [] }',
          'maxQueue: 0',
        ),
      },
    );
    expect(result.ok).toBe(false);
    if (result.ok) return;
    const inFile = result.problems.filter((p) => p.file === join(result.dir, 'bad.yaml'));
    expect(inFile.map((p) => [p.path, p.line, p.column, p.severity])).toEqual([
      ['trigger.eventTypes', 4, 37, 'error'],
      ['maxQueue', 5, 11, 'error'],
    ]);
    expectProblem(result.problems, {
      code: 'SENTINEL_FILE_INVALID',
      path: 'sentinels.bad.file',
      line: 3,
      column: 16,
    });
  });

  it('a prompt template that does not parse is an error, inline and from a file', async () => {
    const problems = await problemsOf(
      yaml(
        'name: x',
        'codons:',
        '  - id: a',
        '    prompt: hi',
        '    sentinels:',
        '      - { id: s, model: m, userPrompt: "{{evnets}}", trigger: { type: event, eventTypes: [tool.result] } }',
        '      - { file: s.yaml }',
      ),
      {
        's.yaml': yaml(
          'id: t',
          'model: m',
          'systemPrompt: "Watch {{codon.nam}}"',
          'userPrompt: "{{events"',
          'trigger: { type: event, eventTypes: [tool.result] }',
        ),
      },
    );
    expect(problems.map((p) => `${p.severity} ${p.code} ${p.path} ${p.message.split(':')[0]}`)).toEqual([
      'error INVALID_TEMPLATE codons[0].sentinels[0].userPrompt The userPrompt, line 1, column 1',
      'error SENTINEL_FILE_INVALID codons[0].sentinels[1].file Sentinel file cannot be loaded',
      'error INVALID_TEMPLATE systemPrompt The systemPrompt, line 1, column 7',
      'error INVALID_TEMPLATE userPrompt The userPrompt, line 1, column 1',
    ]);
  });

  it('an invalid inline sentinel hides neither the files beside it nor its own text problems (trial 17b L3)', async () => {
    const problems = await problemsOf(
      yaml(
        'name: x',
        'codons:',
        '  - id: a',
        '    prompt: hi',
        '    sentinels:',
        '      - file: warn.yaml',
        '      - file: bad.yaml',
        '      - id: inl',
        '        model: m',
        '        userPrompt: "{{events}}"',
        '        trigger: { type: event, eventTypes: [tool.result] }',
        '        actions:',
        '          - when: { regex: "[" }',
        '            do: redo',
        '            text: "{{output.x}}"',
      ),
      {
        'warn.yaml': yaml(
          'id: warn',
          'model: m',
          'userPrompt: "{{events}}"',
          'trigger: { type: event, eventTypes: [tool.reslt] }',
        ),
        'bad.yaml': yaml(
          'id: bad',
          'model: m',
          'userPrompt: "{{events}}"',
          'trigger: { type: event, eventTypes: [tool.result] }',
          'actions: [{ when: [{ path: a, op: equals, value: 1 }], do: halt }]',
        ),
      },
    );
    expect(problems.map((p) => `${p.severity} ${p.code} ${p.path}`)).toEqual([
      'error SENTINEL_FILE_INVALID codons[0].sentinels[1].file',
      'error INVALID_REGEX codons[0].sentinels[2].actions[0].when.regex',
      'error INVALID_TEMPLATE codons[0].sentinels[2].actions[0].text',
      'error ACTION_WHEN_MISMATCH actions[0].when',
      'warning UNKNOWN_EVENT_TYPE trigger.eventTypes[0]',
    ]);
  });

  it("a file whose id differs from the plan's key: the key wins, with a warning", async () => {
    const result = await loadText(
      yaml(
        'name: x',
        'sentinels:',
        '  other: { file: s.yaml }',
        'codons:',
        '  - { id: a, prompt: hi, sentinels: [other] }',
      ),
      { 's.yaml': SENTINEL },
    );
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expectProblem(result.warnings, {
      code: 'SENTINEL_ID_MISMATCH',
      severity: 'warning',
      path: 'sentinels.other.file',
    });
    const [attached] = result.plan.codons[0]!.sentinels;
    expect(attached).toMatchObject({
      status: 'loaded',
      ref: 'other',
      sentinel: { id: 'other', source: 'file' },
    });
  });
});

describe('every problem at once', () => {
  it('reports all problems of examples/plans/invalid/many-problems.yaml in one run', async () => {
    const result = await loadPlan('examples/plans/invalid/many-problems.yaml');
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.problems.map((p) => `${p.line}:${p.column} ${p.code} ${p.path}`)).toEqual([
      '4:8 INVALID_VALUE agent',
      '8:19 CONTINUATION_WITHOUT_PREVIOUS codons[0].continuation',
      '9:5 PROMPT_MISSING codons[1]',
      '9:9 DUPLICATE_ID codons[1].id',
      '10:5 UNKNOWN_FIELD codons[1].promt',
      '11:9 INVALID_ID codons[2].id',
      '13:17 PROMPT_CONFLICT codons[2].promptFile',
      '14:16 WRONG_TYPE codons[2].timeoutMs',
      '16:17 FILE_NOT_FOUND codons[3].promptFile',
      '17:17 UNKNOWN_SENTINEL codons[3].sentinels[0]',
      '19:45 PATH_ESCAPES codons[3].rigSetup[0].copy.to',
      '22:19 INVALID_VALUE codons[4].loop.iterations',
    ]);
    expect(result.problems.every((p) => p.hint.length > 0 && p.severity === 'error')).toBe(true);
  });
});
