import { describe, expect, it } from 'vitest';
import { diffLineText, diffTokens } from '../../../../src/clients/web/model/diff-highlight.ts';
import type { DiffFile } from '../../../../src/clients/web/model/diff-layout.ts';
import {
  highlightLines,
  languageOf,
  MAX_HIGHLIGHT_CHARS,
  type TokenLine,
} from '../../../../src/clients/web/model/highlight.ts';

const text = (line: TokenLine | undefined) => line?.map((t) => t.text).join('') ?? '';
const classOf = (line: TokenLine | undefined, word: string) => line?.find((t) => t.text === word)?.cls;

describe('syntax highlighting', () => {
  it('knows a language by the file extension; none for others', () => {
    expect(languageOf('src/app.TSX')).toBe('typescript');
    expect(languageOf('lib/x.mjs')).toBe('typescript');
    expect(languageOf('a/b.py')).toBe('python');
    expect(languageOf('Cargo.toml')).toBe('ini');
    expect(languageOf('notes.txt')).toBeUndefined();
    expect(languageOf('.bashrc')).toBeUndefined();
    expect(languageOf('Makefile')).toBeUndefined();
  });

  it('cuts the highlighted code into its lines, a comment over two lines coloured on both', () => {
    const lines = highlightLines('/* a\n b */ const x = "<b>";', 'typescript');
    expect(lines?.map(text)).toEqual(['/* a', ' b */ const x = "<b>";']);
    expect(lines?.[0]?.[0]?.cls).toBe('hljs-comment');
    expect(classOf(lines?.[1], 'const')).toBe('hljs-keyword');
    // Markup in the code is text, as it was: nothing to escape, nothing interpreted.
    expect(classOf(lines?.[1], '"<b>"')).toBe('hljs-string');
  });

  it('plain for no language, an unknown one, or too long a text', () => {
    expect(highlightLines('x', undefined)).toBeUndefined();
    expect(highlightLines('x', 'cobol')).toBeUndefined();
    expect(highlightLines('x'.repeat(MAX_HIGHLIGHT_CHARS + 1), 'typescript')).toBeUndefined();
  });
});

describe("a diff's highlighting", () => {
  const file: DiffFile = {
    path: 'a.ts',
    status: 'modified',
    binary: false,
    additions: 1,
    deletions: 1,
    hunks: [
      {
        oldStart: 1,
        oldLines: 3,
        newStart: 1,
        newLines: 3,
        lines: [
          { kind: 'context', text: 'const s = `a' },
          { kind: 'del', text: 'b`;' },
          { kind: 'add', text: 'c`; // done' },
          { kind: 'context', text: 'let n = 1;\r' },
        ],
      },
    ],
  };

  it("reads each side of a hunk as code: a string opened on a context line goes on in both sides' lines", () => {
    const tokens = diffTokens(file);
    expect(tokens?.map(text)).toEqual(['const s = `a', 'b`;', 'c`; // done', 'let n = 1;␍']);
    expect(classOf(tokens?.[1], 'b`')).toBe('hljs-string');
    expect(tokens?.[2]?.[0]).toEqual({ text: 'c`', cls: 'hljs-string' });
    expect(classOf(tokens?.[2], '// done')).toBe('hljs-comment');
  });

  it('shows control characters as stand-ins; a file of no language of ours is plain', () => {
    expect(diffLineText('a\u202eb\u001b[2J\r')).toBe('a<U+202E>b␛[2J␍');
    expect(diffTokens({ ...file, path: 'a.txt' })).toBeUndefined();
    expect(diffTokens({ ...file, binary: true })).toBeUndefined();
  });
});
