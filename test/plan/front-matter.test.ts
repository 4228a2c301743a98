import { describe, expect, it } from 'vitest';
import { parsePromptFile } from '../../src/plan/front-matter.ts';

const FILE = '/plans/prompt.md';

describe('parsePromptFile', () => {
  it('a file without front matter is all prompt', () => {
    expect(parsePromptFile('Write the code.\n', FILE)).toEqual({ ok: true, body: 'Write the code.\n' });
  });

  it('front matter becomes metadata and is cut from the prompt', () => {
    const text =
      '---\nname: Draft\ndescription: Drafts.\ntags: [a, b]\nversion: 1.0\nauthor: Ann\n---\n\nDo it.\n';
    expect(parsePromptFile(text, FILE)).toEqual({
      ok: true,
      body: 'Do it.\n',
      metadata: { name: 'Draft', description: 'Drafts.', tags: ['a', 'b'], version: '1.0', author: 'Ann' },
    });
  });

  it('keeps scalars as written (1.0 stays "1.0", yes stays "yes")', () => {
    const result = parsePromptFile('---\nversion: 1.10\nname: yes\n---\nx', FILE);
    expect(result).toMatchObject({ ok: true, metadata: { version: '1.10', name: 'yes' } });
  });

  it('ignores keys other tools keep in front matter', () => {
    const result = parsePromptFile('---\nname: A\nallowed-tools: Bash\n---\nx', FILE);
    expect(result).toEqual({ ok: true, body: 'x', metadata: { name: 'A' } });
  });

  it('handles CRLF line ends, a byte order mark and an empty block', () => {
    expect(parsePromptFile('\uFEFF---\r\nname: A\r\n---\r\nx\r\n', FILE)).toEqual({
      ok: true,
      body: 'x\r\n',
      metadata: { name: 'A' },
    });
    expect(parsePromptFile('---\n---\nx', FILE)).toEqual({ ok: true, body: 'x' });
  });

  it('a "---" later in the prompt is just text', () => {
    expect(parsePromptFile('Intro\n---\nMore', FILE)).toEqual({ ok: true, body: 'Intro\n---\nMore' });
  });

  it('an unclosed block is a problem on line 1', () => {
    const result = parsePromptFile('---\nname: A\nDo it.\n', FILE);
    expect(result).toMatchObject({
      ok: false,
      problems: [{ code: 'FRONT_MATTER_INVALID', file: FILE, line: 1, column: 1, severity: 'error' }],
    });
  });

  it('wrong types point at their line in the file', () => {
    const result = parsePromptFile('---\nname: A\ntags:\n  nested: map\n---\nx', FILE);
    expect(result).toMatchObject({
      ok: false,
      problems: [{ code: 'WRONG_TYPE', path: 'tags', line: 4, column: 3 }],
    });
  });

  it('YAML errors are placed in the file, below the opening line', () => {
    const result = parsePromptFile('---\nname: A\ntags: [a\n---\nx', FILE);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.problems[0]).toMatchObject({ code: 'YAML_SYNTAX', file: FILE });
    expect(result.problems[0]!.line).toBeGreaterThanOrEqual(3);
  });

  it('a block that is not a mapping', () => {
    const result = parsePromptFile('---\njust words\n---\nx', FILE);
    expect(result).toMatchObject({ ok: false, problems: [{ code: 'FRONT_MATTER_INVALID', line: 2 }] });
  });
});
