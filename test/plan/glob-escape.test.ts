import { describe, expect, it } from 'vitest';
import { expandBraces, globEscape, MAX_BRACE_ALTERNATIVES } from '../../src/plan/glob-escape.ts';
import { problemsOf, yaml } from './helpers.ts';

describe('expandBraces', () => {
  it.each([
    ['{..,x}/*.txt', ['../*.txt', 'x/*.txt']],
    ['a{b,c{d,e}}f', ['abf', 'acdf', 'acef']],
    ['src/*.{js,json}', ['src/*.js', 'src/*.json']],
    ['{,x}/y', ['/y', 'x/y']],
    ['{a}', ['{a}']],
    ['{1..3}', ['{1..3}']],
    ['{{a,b}}', ['{a}', '{b}']],
    ['{a,b', ['{a,b']],
    ['a{b{c,d}', ['a{bc', 'a{bd']],
  ])('%s', (pattern, expected) => {
    expect(expandBraces(pattern)).toEqual(expected);
  });

  it('gives up past the limit instead of growing without bound', () => {
    expect(MAX_BRACE_ALTERNATIVES).toBe(1000);
    expect(expandBraces('{a,b}'.repeat(9))).toHaveLength(512);
    expect(expandBraces('{a,b}'.repeat(10))).toBeUndefined();
  });
});

describe('globEscape', () => {
  it.each(['*.log', 'build/**', 'src/*.{js,json}', 'x{,..}', '{a}/..b', '.cache/*'])(
    'lets %s through',
    (glob) => {
      expect(globEscape(glob)).toBeUndefined();
    },
  );

  it.each([
    ['{..,x}/*.txt', { kind: 'escapes', alternative: '../*.txt' }],
    ['{,.}./a', { kind: 'escapes', alternative: '../a' }],
    ['{/etc,x}/passwd', { kind: 'escapes', alternative: '/etc/passwd' }],
    ['{,x}/*.log', { kind: 'escapes', alternative: '/*.log' }],
    ['a\\{..,b}/x', { kind: 'escapes', alternative: 'a/../x' }],
    ['x/{a,..}/..', { kind: 'escapes', alternative: 'x/a/..' }],
    // Node's glob takes these for `..`: `[.][.]/out/*` lists ../out.
    ['[.][.]/out/*', { kind: 'escapes', alternative: '[.][.]/out/*', segment: '[.][.]' }],
    ['.[.]/*', { kind: 'escapes', alternative: '.[.]/*', segment: '.[.]' }],
    ['{a,b}'.repeat(11), { kind: 'too-many' }],
  ])('refuses %s', (glob, expected) => {
    expect(globEscape(glob)).toEqual(expected);
  });
});

describe('the plan validator', () => {
  it('refuses archive globs whose braces climb out, with the path, the alternative and a hint', async () => {
    const problems = await problemsOf(
      yaml(
        'name: x',
        'codons:',
        '  - id: a',
        '    prompt: hi',
        '    archiveOnSuccess: ["{..,x}/*.txt", "*.{log,txt}", "[.][.]/secrets/*"]',
        '  - loop:',
        '      id: l',
        '      iterations: 2',
        '      archiveOnSuccess: ["{/etc,tmp}/*"]',
        '      codons: [{ id: b, prompt: hi }]',
      ),
    );
    expect(problems).toEqual([
      expect.objectContaining({
        code: 'PATH_ESCAPES',
        severity: 'error',
        path: 'codons[0].archiveOnSuccess[0]',
        line: 5,
        message: 'Glob must match only inside the agent root, but it expands to "../*.txt".',
        hint: expect.stringContaining('no ".." (nor braces or [.] that make one)'),
      }),
      expect.objectContaining({
        code: 'PATH_ESCAPES',
        path: 'codons[0].archiveOnSuccess[2]',
        message: 'Glob must match only inside the agent root, whose "[.][.]" matches "..".',
      }),
      expect.objectContaining({
        code: 'PATH_ESCAPES',
        path: 'codons[1].loop.archiveOnSuccess[0]',
        line: 9,
        message: 'Glob must match only inside the agent root, but it expands to "/etc/*".',
      }),
    ]);
  });
});
