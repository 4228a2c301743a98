import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadSentinelFile } from '../../src/plan/index.ts';
import type { PlanProblem } from '../../src/plan/problems.ts';
import { loadText, problemsOf, tempFiles, yaml } from './helpers.ts';

/** A plan with one named sentinel: `output` and `actions` lines appended to its body. */
const plan = (...lines: string[]) =>
  yaml(
    'name: x',
    'sentinels:',
    '  s:',
    '    model: m',
    '    userPrompt: u',
    '    trigger: { type: event, eventTypes: [tool.result] }',
    ...lines,
    'codons: []',
  );
const STRUCTURED =
  '    output: { type: structured, schema: { type: object, properties: { repeating: { type: boolean }, advice: { type: string } } } }';

function only(problems: readonly PlanProblem[], code: string, path: string): PlanProblem {
  const found = problems.filter((p) => p.code === code && p.path === path);
  expect(found, JSON.stringify(problems, null, 2)).toHaveLength(1);
  return found[0] as PlanProblem;
}

describe('sentinel actions in a plan', () => {
  it('load with their defaults', async () => {
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
        '        trigger: { type: event, eventTypes: [tool.result] }',
        '        output: { type: text }',
        '        actions:',
        '          - { when: { regex: "^HALT" }, do: halt }',
        '          - { when: { regex: "^WARN", flags: i }, do: redo, text: "Mind this: {{output}}" }',
      ),
    );
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    const [entry] = result.plan.codons[0]?.sentinels ?? [];
    expect(entry?.status === 'loaded' && entry.sentinel).toMatchObject({
      actions: [
        { when: { regex: '^HALT' }, do: 'halt' },
        { when: { regex: '^WARN', flags: 'i' }, do: 'redo', text: 'Mind this: {{output}}', max: 1 },
      ],
      maxActions: 3,
      cooldownMs: 30_000,
      dryRun: false,
    });
  });

  it('an unknown action, a missing text, a bad regex: schema errors at their place', async () => {
    const problems = await problemsOf(
      plan(
        '    actions:',
        '      - { when: { regex: x }, do: explode }',
        '      - { when: { regex: x }, do: message }',
        '      - { when: { regex: "(open" }, do: halt }',
      ),
    );
    expect(only(problems, 'INVALID_VALUE', 'sentinels.s.actions[0].do').hint).toBe(
      'Use one of: message, halt, rollback, redo, comment.',
    );
    only(problems, 'MISSING_FIELD', 'sentinels.s.actions[1].text');
    only(problems, 'INVALID_REGEX', 'sentinels.s.actions[2].when.regex');
  });

  it('`when` must fit the output: conditions for structured, a regex for text', async () => {
    const onText = await problemsOf(
      plan('    actions:', '      - { when: [{ path: repeating, op: equals, value: true }], do: halt }'),
    );
    const text = only(onText, 'ACTION_WHEN_MISMATCH', 'sentinels.s.actions[0].when');
    expect(text).toMatchObject({ severity: 'error', line: 8 });
    expect(text.message).toBe("Action 1 tests fields of the output, but this sentinel's output is text.");
    const onStructured = await problemsOf(
      plan(STRUCTURED, '    actions:', '      - { when: { regex: x }, do: halt }'),
    );
    expect(only(onStructured, 'ACTION_WHEN_MISMATCH', 'sentinels.s.actions[0].when').hint).toContain(
      'path: repeating',
    );
  });

  it('a text template with an unknown placeholder is an error; an undeclared output field a warning', async () => {
    const problems = await problemsOf(
      plan(
        STRUCTURED,
        '    actions:',
        '      - { when: [{ path: repeting, op: equals, value: true }], do: message, text: "{{output.advise}}" }',
        '      - { when: [{ path: repeating, op: equals, value: true }], do: message, text: "{{events}}" }',
      ),
    );
    const template = only(problems, 'INVALID_TEMPLATE', 'sentinels.s.actions[1].text');
    expect(template.message).toContain('{{events}}: unknown variable');
    const field = only(problems, 'UNKNOWN_OUTPUT_FIELD', 'sentinels.s.actions[0].when[0].path');
    expect(field).toMatchObject({ severity: 'warning', hint: 'Did you mean "repeating"?' });
    expect(only(problems, 'UNKNOWN_OUTPUT_FIELD', 'sentinels.s.actions[0].text').hint).toBe(
      'Did you mean "advice"?',
    );
  });

  it('an invalid action or sentinel does not hide the problems of the ones that parsed (trial 17 L1, L2)', async () => {
    const problems = await problemsOf(
      yaml(
        'name: x',
        'sentinels:',
        '  s:',
        '    model: m',
        '    userPrompt: u',
        '    trigger: { type: event, eventTypes: [tool.reslt] }',
        '    actions:',
        '      - { when: { regex: x }, do: explode }',
        '      - { when: [{ path: a, op: equals, value: 1 }], do: halt, text: "stray" }',
        '      - { when: { regex: x }, do: message, text: "{{nope}} {{output" }',
        'codons:',
        '  - id: a',
        '    prompt: hi',
        '    sentinels:',
        '      - id: bad',
        '        model: m',
        '        userPrompt: u',
        '        trigger: { type: event, eventTypes: [tool.result] }',
        '        maxActions: 0',
        '      - id: good',
        '        model: m',
        '        userPrompt: u',
        '        trigger: { type: event, eventTypes: [tool.result] }',
        '        actions: [{ when: [{ path: a, op: equals, value: 1 }], do: halt }]',
      ),
    );
    expect(problems.map((p) => `${p.severity} ${p.code} ${p.path}`)).toEqual([
      'warning UNKNOWN_EVENT_TYPE sentinels.s.trigger.eventTypes[0]',
      'error INVALID_VALUE sentinels.s.actions[0].do',
      'error ACTION_WHEN_MISMATCH sentinels.s.actions[1].when',
      'error UNKNOWN_FIELD sentinels.s.actions[1].text',
      'error INVALID_TEMPLATE sentinels.s.actions[2].text',
      'error INVALID_TEMPLATE sentinels.s.actions[2].text',
      'error INVALID_VALUE codons[0].sentinels[0].maxActions',
      'error ACTION_WHEN_MISMATCH codons[0].sentinels[1].actions[0].when',
    ]);
    expect(only(problems, 'UNKNOWN_FIELD', 'sentinels.s.actions[1].text').hint).toBe(
      'Remove it. Fields allowed here: when, do, after.',
    );
  });

  it('an output that is invalid says nothing about the `when` of the actions', async () => {
    const problems = await problemsOf(
      plan(
        '    output: { type: structured, schema: { type: array } }',
        '    actions:',
        '      - { when: [{ path: a, op: equals, value: 1 }], do: message, text: "{{output.a}}" }',
        '      - { when: { regex: x }, do: halt }',
      ),
    );
    expect(problems.map((p) => `${p.code} ${p.path}`)).toEqual(['INVALID_VALUE sentinels.s.output.schema']);
  });

  it('a sentinel file whose action does not fit does not load (SENTINEL_FILE_INVALID)', async () => {
    const dir = await tempFiles({
      's.yaml': yaml(
        'id: s',
        'model: m',
        'userPrompt: u',
        'trigger: { type: event, eventTypes: [tool.result] }',
        'actions: [{ when: [{ path: a, op: equals, value: 1 }], do: halt }]',
      ),
    });
    const loaded = await loadSentinelFile(join(dir, 's.yaml'));
    expect(loaded.ok).toBe(false);
    if (loaded.ok) return;
    expect(loaded.loadError.code).toBe('SENTINEL_FILE_INVALID');
    expect(loaded.problems.map((p) => p.code)).toEqual(['ACTION_WHEN_MISMATCH']);
  });
});
