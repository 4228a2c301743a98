import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  formatClock,
  formatCost,
  formatDuration,
  formatTokens,
  oneLine,
  sanitize,
} from '../../../src/clients/model/format.ts';

describe('format', () => {
  it('formats money, time and tokens for people', () => {
    expect([formatCost(0), formatCost(0.0042), formatCost(1.5)]).toEqual(['$0', '$0.0042', '$1.50']);
    expect([
      formatDuration(850),
      formatDuration(12_340),
      formatDuration(125_000),
      formatDuration(3_720_000),
    ]).toEqual(['850ms', '12.3s', '2m05s', '1h02m']);
    // One format for every UI and the CLI's run table and exit line.
    expect([0, 59_400, 61_000, 3_840_000, -1].map(formatDuration)).toEqual([
      '0ms',
      '59.4s',
      '1m01s',
      '1h04m',
      '-',
    ]);
    expect([formatClock(83_000), formatClock(3_723_000)]).toEqual(['01:23', '1:02:03']);
    expect([formatTokens(999), formatTokens(1_234), formatTokens(45_600), formatTokens(1_234_567)]).toEqual([
      '999',
      '1.2k',
      '46k',
      '1.23M',
    ]);
  });

  it('shows escape sequences, control characters and bidi controls in agent text as stand-ins', () => {
    // Colour dropped; the title sequence shown for what it is, inert.
    expect(sanitize('a\u001b[31mred\u001b[0m\tb\r\nc\u0007\u001b]0;title\u0007d')).toBe(
      'ared  b\nc␇␛]0;title␇d',
    );
    expect(oneLine('  many\n\nlines  ', 100)).toBe('many lines');
    // Bidirectional controls would reorder what follows them (trial 17b L4).
    expect(sanitize('a\u202eevil\u202c \u2066x\u2069')).toBe('a<U+202E>evil<U+202C> <U+2066>x<U+2069>');
    expect(oneLine('a\u202eevil', 100)).toBe('a<U+202E>evil');
    expect(oneLine('x'.repeat(10), 5)).toBe('xxxx…');
    // Its shortcut for text already on one line gives what the whole treatment gives.
    const slow = (text: string, max: number) => {
      const line = sanitize(text).replace(/\s+/g, ' ').trim();
      return line.length > max ? `${line.slice(0, max - 1)}…` : line;
    };
    const piece = fc.constantFrom(
      'a',
      'b c',
      ' ',
      '  ',
      '\t',
      '\n',
      '\r',
      '\u00a0',
      '\u2028',
      '\u001b[31m',
      '\u0007',
      '\u202e',
      '\u2067',
      '\u200f',
      'é',
      '→',
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 12 }), fc.integer({ min: 1, max: 30 }), (parts, max) => {
        const text = parts.join('');
        expect(oneLine(text, max)).toBe(slow(text, max));
      }),
    );
  });
});
