import { describe, expect, it } from 'vitest';
import { ECHO_MAX_CHARS, echo } from '../../../src/core/protocol/index.ts';

describe('echo', () => {
  it('keeps a short value whole', () => {
    expect(echo('codon-1')).toBe('codon-1');
    expect(echo('x'.repeat(ECHO_MAX_CHARS))).toBe('x'.repeat(ECHO_MAX_CHARS));
  });

  it('cuts a long value to its first characters and says how many more there were', () => {
    expect(echo('y'.repeat(9 * 1024 * 1024))).toBe(
      `${'y'.repeat(100)}… (${9 * 1024 * 1024 - 100} more characters)`,
    );
    expect(echo('abcdef', 3)).toBe('abc… (3 more characters)');
  });

  it('never cuts a surrogate pair in half', () => {
    const cut = echo(`${'a'.repeat(99)}😀${'b'.repeat(50)}`);
    expect(cut).toBe(`${'a'.repeat(99)}… (52 more characters)`);
    expect(cut.isWellFormed()).toBe(true);
  });
});
