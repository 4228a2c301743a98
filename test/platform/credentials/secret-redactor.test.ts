import { describe, expect, it } from 'vitest';
import { OFFLINE_KEY } from '../../../src/platform/credentials/credentials.ts';
import { SecretRedactor } from '../../../src/platform/credentials/secret-redactor.ts';

const KEY = 'sk-planted-0123456789abcdef';
const TOKEN = 'tok/with+odd=chars&more';

function redactor(): SecretRedactor {
  const secrets = new SecretRedactor();
  secrets.add('OPENAI_API_KEY', KEY);
  secrets.add('RIBOSOME_TOKEN', TOKEN);
  return secrets;
}

describe('SecretRedactor', () => {
  it('replaces every known value by a marker that names it, wherever it shows', () => {
    const out = redactor().text(`key=${KEY}; again ${KEY}; token ${TOKEN}.`);
    expect(out).toBe(
      'key=[redacted:OPENAI_API_KEY]; again [redacted:OPENAI_API_KEY]; token [redacted:RIBOSOME_TOKEN].',
    );
  });

  it('ignores values too short to be secret, the offline placeholder, and unset ones', () => {
    const secrets = new SecretRedactor();
    secrets.add('SHORT', 'abc1234');
    secrets.add('ANTHROPIC_API_KEY', OFFLINE_KEY);
    secrets.add('UNSET', undefined);
    expect(secrets.empty).toBe(true);
    expect(secrets.text(`abc1234 ${OFFLINE_KEY}`)).toBe(`abc1234 ${OFFLINE_KEY}`);
  });

  it('catches the URL-encoded form', () => {
    const out = redactor().text(`GET /x?t=${encodeURIComponent(TOKEN)}`);
    expect(out).not.toContain(encodeURIComponent(TOKEN));
    expect(out).toContain('[redacted:RIBOSOME_TOKEN]');
  });

  it('catches base64 of the value at any offset inside a longer encoded text, standard and URL-safe', () => {
    const secrets = redactor();
    for (const prefix of ['', 'u', 'us', 'user:']) {
      for (const encoding of ['base64', 'base64url'] as const) {
        const encoded = Buffer.from(`${prefix}${KEY}`).toString(encoding);
        const out = secrets.text(`Authorization: Basic ${encoded}`);
        expect(out, `${prefix} ${encoding}`).toContain('[redacted:OPENAI_API_KEY]');
        // What is left of the encoding no longer decodes to the key.
        expect(Buffer.from(out.replace(/^.*Basic /, ''), encoding).toString()).not.toContain(KEY);
      }
    }
  });

  it('redacts a longer value before one inside it', () => {
    const secrets = new SecretRedactor();
    secrets.add('INNER', '12345678');
    secrets.add('OUTER', 'abc-12345678-xyz');
    expect(secrets.text('abc-12345678-xyz and 12345678')).toBe('[redacted:OUTER] and [redacted:INNER]');
  });

  it('finds a value in JSON text even where JSON escapes it', () => {
    const secrets = new SecretRedactor();
    secrets.add('QUOTED', 'pass"word\\with');
    const json = JSON.stringify({ text: 'x pass"word\\with y' });
    expect(secrets.contains(json)).toBe(true);
    expect(secrets.contains(JSON.stringify({ text: 'nothing here' }))).toBe(false);
  });

  it('redacts every string of a value, keys too, and leaves a clean one as the same object', () => {
    const secrets = redactor();
    const clean = { a: ['x', { b: 1 }], c: null };
    expect(secrets.value(clean)).toBe(clean);
    const dirty = { input: { command: `echo ${KEY}`, [KEY]: true }, list: ['ok', TOKEN], n: 3 };
    const out = secrets.value(dirty);
    expect(out).toEqual({
      input: { command: 'echo [redacted:OPENAI_API_KEY]', '[redacted:OPENAI_API_KEY]': true },
      list: ['ok', '[redacted:RIBOSOME_TOKEN]'],
      n: 3,
    });
    // The input is untouched.
    expect(dirty.input.command).toBe(`echo ${KEY}`);
  });

  it('a value cut between two chunks of a stream: the second chunk carries the marker, no chunk the whole', () => {
    const secrets = redactor();
    const printed = `before ${KEY} after`;
    for (let cut = 1; cut < printed.length; cut++) {
      const first = printed.slice(0, cut);
      const second = printed.slice(cut);
      const out1 = secrets.continuation('', first);
      const out2 = secrets.continuation(first.slice(-secrets.carry), second);
      expect(out1 + out2, `cut at ${cut}`).not.toContain(KEY);
      expect(out1 + out2, `cut at ${cut}`).toContain('[redacted:OPENAI_API_KEY]');
      expect(out1 + out2).toMatch(/^before .* after$/);
    }
  });
});
