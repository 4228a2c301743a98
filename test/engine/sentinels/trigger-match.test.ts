import { describe, expect, it } from 'vitest';
import { compileCondition, compileStep } from '../../../src/engine/sentinels/trigger-match.ts';
import type { TriggerCondition } from '../../../src/plan/index.ts';

const toolUse = {
  type: 'assistant.action',
  data: {
    codonId: 'c1',
    action: 'tool_use',
    content: 'Bash: rm -rf /tmp/x',
    toolName: 'Bash',
    toolInput: { command: 'rm -rf /tmp/x', timeout: 5000, tags: ['a', 'b'] },
    nothing: null,
  },
};

const cases: Array<[string, TriggerCondition, boolean]> = [
  ['equals string', { path: 'data.toolName', op: 'equals', value: 'Bash' }, true],
  ['equals other string', { path: 'data.toolName', op: 'equals', value: 'Read' }, false],
  ['equals is strict about types', { path: 'data.toolInput.timeout', op: 'equals', value: '5000' }, false],
  ['equals null', { path: 'data.nothing', op: 'equals', value: null }, true],
  ['equals on a missing field', { path: 'data.missing', op: 'equals', value: null }, false],
  ['equals on the envelope', { path: 'type', op: 'equals', value: 'assistant.action' }, true],
  ['notEquals different', { path: 'data.toolName', op: 'notEquals', value: 'Read' }, true],
  ['notEquals same', { path: 'data.toolName', op: 'notEquals', value: 'Bash' }, false],
  [
    'notEquals on a missing field never matches',
    { path: 'data.missing', op: 'notEquals', value: 'x' },
    false,
  ],
  ['in listed', { path: 'data.toolName', op: 'in', value: ['Read', 'Bash'] }, true],
  ['in not listed', { path: 'data.toolName', op: 'in', value: ['Read', 'Write'] }, false],
  ['in with a number', { path: 'data.toolInput.timeout', op: 'in', value: [1, 5000] }, true],
  ['in on an object value', { path: 'data.toolInput', op: 'in', value: ['x'] }, false],
  ['contains substring', { path: 'data.toolInput.command', op: 'contains', value: 'rm -rf' }, true],
  ['contains missing substring', { path: 'data.toolInput.command', op: 'contains', value: 'sudo' }, false],
  ['contains array element', { path: 'data.toolInput.tags', op: 'contains', value: 'b' }, true],
  ['contains absent array element', { path: 'data.toolInput.tags', op: 'contains', value: 'c' }, false],
  ['contains number in string', { path: 'data.toolInput.command', op: 'contains', value: 5 }, false],
  ['regex', { path: 'data.toolInput.command', op: 'regex', value: '\\brm\\b' }, true],
  ['regex no match', { path: 'data.toolInput.command', op: 'regex', value: '^sudo' }, false],
  ['regex with flags', { path: 'data.toolName', op: 'regex', value: '^bash$', flags: 'i' }, true],
  ['regex on a number', { path: 'data.toolInput.timeout', op: 'regex', value: '5' }, false],
  ['gt', { path: 'data.toolInput.timeout', op: 'gt', value: 1000 }, true],
  ['gt equal is not greater', { path: 'data.toolInput.timeout', op: 'gt', value: 5000 }, false],
  ['lt', { path: 'data.toolInput.timeout', op: 'lt', value: 6000 }, true],
  ['lt on a string', { path: 'data.toolName', op: 'lt', value: 6000 }, false],
  ['array index in a path', { path: 'data.toolInput.tags.1', op: 'equals', value: 'b' }, true],
  ['path through a scalar', { path: 'data.toolName.length', op: 'equals', value: 4 }, false],
];

describe('trigger conditions', () => {
  it.each(cases)('%s', (_name, condition, expected) => {
    expect(compileCondition(condition)(toolUse)).toBe(expected);
  });

  it('does not find inherited properties', () => {
    expect(compileCondition({ path: 'data.toString', op: 'notEquals', value: 'x' })(toolUse)).toBe(false);
  });
});

describe('event steps', () => {
  const bash = [{ path: 'data.toolName', op: 'equals', value: 'Bash' }] satisfies TriggerCondition[];
  const table: Array<[string, string[], TriggerCondition[], boolean]> = [
    ['type listed, no conditions', ['assistant.action'], [], true],
    ['type not listed', ['tool.result'], [], false],
    ['one of several types', ['tool.result', 'assistant.action'], [], true],
    ['type and condition', ['assistant.action'], bash, true],
    [
      'all conditions must hold',
      ['assistant.action'],
      [...bash, { path: 'data.toolInput.timeout', op: 'gt', value: 9000 }],
      false,
    ],
  ];
  it.each(table)('%s', (_name, types, conditions, expected) => {
    expect(compileStep(types, conditions)(toolUse)).toBe(expected);
  });
});
