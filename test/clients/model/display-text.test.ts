import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { displayJson, displayLine, displayText } from '../../../src/clients/model/display-text.ts';

/** What must never reach a terminal or a page: ESC and the other C0 controls but LF/TAB, DEL, C1, bidi. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const FORBIDDEN = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const FORBIDDEN_IN_LINE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

describe('displayText and displayLine', () => {
  it.each([
    ['plain text', 'src/app.ts', 'src/app.ts', 'src/app.ts'],
    ['OSC window title (BEL)', 'a\u001b]0;pwned\u0007b', 'a␛]0;pwned␇b', 'a␛]0;pwned␇b'],
    ['OSC 52 clipboard (ST)', '\u001b]52;c;cm0gLXJm\u001b\\', '␛]52;c;cm0gLXJm␛\\', '␛]52;c;cm0gLXJm␛\\'],
    ['CSI clear screen', 'x\u001b[2J\u001b[H', 'x␛[2J␛[H', 'x␛[2J␛[H'],
    ['DCS', '\u001bPq#0\u001b\\', '␛Pq#0␛\\', '␛Pq#0␛\\'],
    ['colour dropped', '\u001b[1;31mFAIL\u001b[0m ok', 'FAIL ok', 'FAIL ok'],
    ['8-bit CSI (C1)', 'a\u009b2Jb', 'a<U+009B>2Jb', 'a<U+009B>2Jb'],
    ['right-to-left override', 'a\u202eexe.txt', 'a<U+202E>exe.txt', 'a<U+202E>exe.txt'],
    [
      'isolates and marks',
      '\u2066x\u2069\u200e\u200f\u061c',
      '<U+2066>x<U+2069><U+200E><U+200F><U+061C>',
      '<U+2066>x<U+2069><U+200E><U+200F><U+061C>',
    ],
    ['lone CR and CRLF', 'a\rb\r\nc', 'a\nb\nc', 'a␍b␍␊c'],
    ['tab and line break', 'a\tb\nc', 'a\tb\nc', 'a␉b␊c'],
    ['NUL, BS and DEL', 'a\u0000b\bc\u007f', 'a␀b␈c␡', 'a␀b␈c␡'],
    ['other scripts untouched', 'שלום مرحبا 日本 é 🎉', 'שלום مرحبا 日本 é 🎉', 'שלום مرحبا 日本 é 🎉'],
  ])('%s', (_what, input, text, line) => {
    expect(displayText(input)).toBe(text);
    expect(displayLine(input)).toBe(line);
  });

  const piece = fc.oneof(
    fc.string({ unit: 'binary' }),
    fc.constantFrom(
      '\u001b',
      '\u001b[',
      '\u001b[0m',
      '\u001b]',
      '\u0007',
      '\u009b',
      '\u009d',
      '\r',
      '\n',
      '\t',
    ),
    fc.constantFrom('\u202a', '\u202e', '\u2066', '\u2069', '\u200e', '\u200f', '\u061c'),
  );
  const hostile = fc.array(piece, { maxLength: 12 }).map((parts) => parts.join(''));

  it('never gives back ESC, another control character or a bidi control, and is idempotent', () => {
    fc.assert(
      fc.property(hostile, (text) => {
        const shown = displayText(text);
        const line = displayLine(text);
        expect(shown).not.toMatch(FORBIDDEN);
        expect(shown).not.toContain('\r');
        expect(line).not.toMatch(FORBIDDEN_IN_LINE);
        expect(displayText(shown)).toBe(shown);
        expect(displayLine(line)).toBe(line);
      }),
    );
  });

  it('gives printable text back as it is', () => {
    const printable = fc.string({ unit: 'grapheme' }).filter((s) => !FORBIDDEN_IN_LINE.test(s));
    fc.assert(
      fc.property(printable, (text) => {
        expect(displayText(text)).toBe(text);
        expect(displayLine(text)).toBe(text);
      }),
    );
  });

  it('escapes in JSON the C1 and bidi controls JSON.stringify leaves raw: the same value, nothing raw', () => {
    const value = { name: 'a\u202eb\u009b2J\u001b]0;t\u0007', ok: 'שלום' };
    const json = displayJson(JSON.stringify(value));
    expect(json).toBe('{"name":"a\\u202eb\\u009b2J\\u001b]0;t\\u0007","ok":"שלום"}');
    expect(JSON.parse(json)).toEqual(value);
    fc.assert(
      fc.property(fc.jsonValue(), hostile, (v, text) => {
        const shown = displayJson(JSON.stringify([v, text]));
        expect(shown).not.toMatch(FORBIDDEN_IN_LINE);
        expect(JSON.parse(shown)).toEqual(JSON.parse(JSON.stringify([v, text])));
      }),
    );
  });
});
