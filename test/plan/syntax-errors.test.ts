import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadPlan } from '../../src/plan/index.ts';
import { jsonSyntaxError } from '../../src/plan/json-syntax.ts';
import type { PlanProblem } from '../../src/plan/problems.ts';
import { problemsOf, tempFiles, yaml } from './helpers.ts';

/** The problems of a plan file with this name and text. */
async function problemsOfFile(name: string, text: string): Promise<PlanProblem[]> {
  const dir = await tempFiles({ [name]: text });
  const result = await loadPlan(join(dir, name));
  return result.ok ? result.warnings : result.problems;
}

const place = (p: PlanProblem) => ({ code: p.code, line: p.line, column: p.column, message: p.message });

describe('a .json file is read as JSON', () => {
  it('a trailing comma in an array is an error at the comma', async () => {
    const text = '{\n  "name": "x",\n  "codons": [\n    {"id": "a", "prompt": "hi"},\n  ]\n}\n';
    const problems = await problemsOfFile('plan.json', text);
    expect(problems.map(place)).toEqual([
      { code: 'JSON_SYNTAX', line: 4, column: 32, message: 'Trailing comma before "]".' },
    ]);
    expect(problems[0]?.hint).toContain('Remove the comma');
  });

  it('a trailing comma in an object, a comment, a single-quoted string: each at its place', async () => {
    const cases: Array<[string, { line: number; column: number; message: string }]> = [
      [
        '{\n  "name": "x",\n  "codons": [{"id": "a", "prompt": "hi",}]\n}\n',
        { line: 3, column: 40, message: 'Trailing comma before "}".' },
      ],
      [
        '{\n  "name": "x", // the name\n  "codons": []\n}\n',
        { line: 2, column: 16, message: 'Comments are not allowed in JSON.' },
      ],
      [
        '{\n  "name": \'x\',\n  "codons": []\n}\n',
        { line: 2, column: 11, message: 'Strings must be in double quotes in JSON.' },
      ],
      [
        '{\n  "name": "x"\n  "codons": []\n}\n',
        { line: 3, column: 3, message: 'Expected "," or "}", found """.' },
      ],
    ];
    for (const [text, expected] of cases) {
      const problems = await problemsOfFile('plan.json', text);
      expect(problems.map(place), text).toEqual([{ code: 'JSON_SYNTAX', ...expected }]);
    }
  });

  it('the same text with a trailing comma is fine as YAML (a flow sequence allows one)', async () => {
    const text = '{"name": "x", "codons": [{"id": "a", "prompt": "hi"},]}\n';
    expect(await problemsOfFile('plan.yaml', text)).toEqual([]);
    expect((await problemsOfFile('plan.json', text)).map((p) => p.code)).toEqual(['JSON_SYNTAX']);
  });

  it('valid JSON loads, and its problems still have lines and columns', async () => {
    const text =
      '{\n  "name": "x",\n  "codons": [\n    {"id": "a", "prompt": "hi", "timeoutMs": "5"}\n  ]\n}\n';
    const problems = await problemsOfFile('plan.json', text);
    expect(problems.map((p) => [p.code, p.path, p.line, p.column])).toEqual([
      ['WRONG_TYPE', 'codons[0].timeoutMs', 4, 46],
    ]);
  });

  it('a repeated key is an error in JSON too', async () => {
    const problems = await problemsOfFile(
      'plan.json',
      '{\n  "name": "x",\n  "name": "y",\n  "codons": []\n}\n',
    );
    expect(problems.map((p) => [p.code, p.line])).toEqual([['JSON_SYNTAX', 3]]);
  });

  it('the scanner agrees with JSON.parse on what is valid', () => {
    const valid = ['{}', '[]', '{"a": [1, -2.5e3, true, false, null, "x\\n\\u00e9"]}', ' \n"s" \n'];
    for (const text of valid) expect(jsonSyntaxError(text), text).toBeUndefined();
    const invalid = ['{', '[1,]', '{"a":}', '{"a" 1}', '01', '"a\nb"', '[1] 2', 'tru', '{"a": 1,,}'];
    for (const text of invalid) {
      expect(() => JSON.parse(text), text).toThrow();
      expect(jsonSyntaxError(text), text).toBeDefined();
    }
  });
});

describe('YAML syntax errors point at the line of the mistake', () => {
  it('an unclosed double quote: where it opened, not the end of the file', async () => {
    const problems = await problemsOf(
      yaml('name: x', 'codons:', '  - id: a', '    prompt: "unclosed', '  - id: b', '    prompt: hi'),
    );
    expect(problems.map(place)).toEqual([
      { code: 'YAML_SYNTAX', line: 4, column: 13, message: 'This double quote is never closed.' },
    ]);
  });

  it('an unclosed flow sequence or mapping: where its bracket opened', async () => {
    const sequence = await problemsOf(
      yaml('name: x', 'codons: [', '  {id: a, prompt: hi},', '  {id: b, prompt: hi}', 'agent: builtin'),
    );
    expect(sequence.map(place)).toEqual([
      { code: 'YAML_SYNTAX', line: 2, column: 9, message: 'This "[" is never closed.' },
    ]);
    const mapping = await problemsOf(
      yaml(
        'name: x',
        'codons:',
        '  - id: a',
        '    prompt: hi',
        '    env: {A: 1',
        '  - id: b',
        '    prompt: hi',
      ),
    );
    expect(mapping.map(place)).toEqual([
      { code: 'YAML_SYNTAX', line: 5, column: 10, message: 'This "{" is never closed.' },
    ]);
  });

  it('one problem for one mistake: the parser’s follow-on errors are left out', async () => {
    const problems = await problemsOf(
      yaml('name: x', 'codons:', '  - id: a', '    prompt: hi', '    - id: b'),
    );
    expect(problems.map((p) => [p.code, p.line])).toEqual([['YAML_SYNTAX', 5]]);
  });

  it('a bad indentation and a tab: their own line', async () => {
    const indent = await problemsOf(
      yaml('name: x', 'codons:', '  - id: a', '    prompt: hi', '   timeoutMs: 5'),
    );
    expect(indent.map((p) => [p.code, p.line])).toEqual([['YAML_SYNTAX', 5]]);
    const tab = await problemsOf(yaml('name: x', 'codons:', '  - id: a', '\tprompt: hi'));
    expect(tab.map((p) => [p.code, p.line, p.hint])).toEqual([
      ['YAML_SYNTAX', 4, 'Indent with spaces, not tabs.'],
    ]);
  });

  it('a key indented deeper than its mapping: its own line and column, not the value above it', async () => {
    const cases: Array<[string, { line: number; column: number; above: number }]> = [
      [
        yaml('name: p', 'codons:', '  - id: a', '    prompt: x', '  - id: b', '     prompt: y'),
        { line: 6, column: 6, above: 5 },
      ],
      [yaml('name: p', 'port: 0', '  host: x'), { line: 3, column: 3, above: 2 }],
      // A plain value may go on over lines: the key is where the `:` is, not the line after the value.
      [yaml('name: hello', '  world', '  codons: []'), { line: 3, column: 3, above: 1 }],
    ];
    for (const [text, { line, column, above }] of cases) {
      const problems = await problemsOf(text);
      expect(problems.map(place), text).toEqual([
        {
          code: 'YAML_SYNTAX',
          line,
          column,
          message: `This key is indented deeper than the keys of its mapping, so YAML reads it as part of the value on line ${above}.`,
        },
      ]);
    }
    // Two keys on one line stay where the parser puts them (the second key).
    const inline = await problemsOf(yaml('name: p', 'codons: a: b'));
    expect(inline.map((p) => [p.line, p.column])).toEqual([[2, 9]]);
  });
});

describe('hints respect the bounds of the field', () => {
  it('a quoted number: the hint gives the field’s range, not a value it refuses', async () => {
    const problems = await problemsOf(
      yaml('name: x', 'onFailure: { retry: { maxAttempts: "3" } }', 'codons:', '  - id: a', '    prompt: hi'),
    );
    const hint = problems.find((p) => p.path === 'onFailure.retry.maxAttempts')?.hint;
    expect(hint).toBe('Write a plain number without quotes or units: a whole number from 1 to 100.');
  });

  it('a number out of range: the hint names both bounds', async () => {
    const problems = await problemsOf(
      yaml(
        'name: x',
        'codons:',
        '  - id: a',
        '    prompt: hi',
        '    onFailure: { retry: { maxAttempts: 500 } }',
      ),
    );
    const problem = problems.find((p) => p.path === 'codons[0].onFailure.retry.maxAttempts');
    expect(problem?.message).toBe('"maxAttempts" must be less than or equal to 100, not 500.');
    expect(problem?.hint).toMatch(/^Use a whole number from 1 to 100\./);
  });

  it('a number too large to hold (1e400, read as Infinity) is said to be, not "a number (null)" (issue 30 trial)', async () => {
    const problems = await problemsOf(
      yaml(
        'name: x',
        'budget: { maxCostUsd: 1e400, maxOutputTokens: -1e400 }',
        'codons:',
        '  - id: a',
        '    prompt: hi',
      ),
    );
    expect(problems.find((p) => p.path === 'budget.maxCostUsd')?.message).toBe(
      '"maxCostUsd" must be a finite number, not Infinity (a number too large to hold: above 1.8e308).',
    );
    expect(problems.find((p) => p.path === 'budget.maxOutputTokens')?.message).toBe(
      '"maxOutputTokens" must be a finite number, not -Infinity (a number too large to hold: below -1.8e308).',
    );
  });

  it('an exclusive bound stays exclusive for a decimal field, and the example is the default', async () => {
    const problems = await problemsOf(
      yaml(
        'name: x',
        'budget: { maxCostUsd: 0 }',
        'codons:',
        '  - id: a',
        '    prompt: hi',
        '    verify: [{ run: "true" }]',
        '    onVerifyFailure: { maxRounds: "2" }',
      ),
    );
    expect(problems.find((p) => p.path === 'budget.maxCostUsd')?.hint).toMatch(
      /^Use a number greater than 0\./,
    );
    expect(problems.find((p) => p.path === 'codons[0].onVerifyFailure.maxRounds')?.hint).toBe(
      'Write a plain number without quotes or units: a whole number from 1 to 100, e.g. 3.',
    );
  });
});
