import { symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readFileContent } from '../../../src/platform/files/read-content.ts';
import { BINARY_SNIFF_BYTES, decodeText, hasBinarySniff } from '../../../src/platform/files/text-content.ts';
import { tempRoot, write } from './helpers.ts';

describe('decodeText', () => {
  it('decodes UTF-8 text, multi-byte characters included', () => {
    expect(decodeText(Buffer.from('héllo wörld ✓ 🧬\n'))).toBe('héllo wörld ✓ 🧬\n');
    expect(decodeText(new Uint8Array())).toBe('');
  });

  it('drops a leading byte order mark', () => {
    expect(decodeText(Buffer.from('\uFEFFabc'))).toBe('abc');
  });

  it('refuses a NUL byte in the first 8 KiB', () => {
    expect(decodeText(Buffer.from([0x50, 0x4b, 0x03, 0x04, 0x00, 0x01]))).toBeUndefined();
    const lateNul = Buffer.alloc(BINARY_SNIFF_BYTES - 1, 'a');
    expect(hasBinarySniff(Buffer.concat([lateNul, Buffer.from([0])]))).toBe(true);
  });

  it('does not look for NUL past 8 KiB (valid UTF-8 there is still text)', () => {
    const bytes = Buffer.concat([Buffer.alloc(BINARY_SNIFF_BYTES, 'a'), Buffer.from([0])]);
    expect(hasBinarySniff(bytes)).toBe(false);
    expect(decodeText(bytes)).toHaveLength(BINARY_SNIFF_BYTES + 1);
  });

  it('refuses invalid UTF-8 anywhere (Latin-1, a truncated sequence)', () => {
    expect(decodeText(Buffer.from('caf\xe9', 'latin1'))).toBeUndefined();
    expect(decodeText(Buffer.concat([Buffer.alloc(20_000, 'a'), Buffer.from([0xe2, 0x82])]))).toBeUndefined();
  });
});

describe('readFileContent', () => {
  it('reads a text file', async () => {
    const root = tempRoot();
    write(root, 'a.txt', 'hello\n');
    expect(await readFileContent(join(root, 'a.txt'), 100)).toEqual({ content: 'hello\n' });
  });

  it('reads an empty file as empty text', async () => {
    const root = tempRoot();
    write(root, 'empty', '');
    expect(await readFileContent(join(root, 'empty'), 100)).toEqual({ content: '' });
  });

  it('gives a file of exactly the limit, and leaves out one byte more', async () => {
    const root = tempRoot();
    write(root, 'fits', 'x'.repeat(100));
    write(root, 'over', 'x'.repeat(101));
    expect((await readFileContent(join(root, 'fits'), 100)).content).toHaveLength(100);
    expect(await readFileContent(join(root, 'over'), 100)).toEqual({ content: '', omitted: 'too-large' });
  });

  it('leaves out binary content', async () => {
    const root = tempRoot();
    write(root, 'img.png', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00]));
    expect(await readFileContent(join(root, 'img.png'), 1000)).toEqual({ content: '', omitted: 'binary' });
  });

  it('does not follow symlinks, nor read directories or missing files', async () => {
    const root = tempRoot();
    write(root, 'target.txt', 'secret');
    symlinkSync(join(root, 'target.txt'), join(root, 'link'));
    expect(await readFileContent(join(root, 'link'), 1000)).toEqual({ content: '', omitted: 'not-a-file' });
    expect(await readFileContent(root, 1000)).toEqual({ content: '', omitted: 'not-a-file' });
    expect(await readFileContent(join(root, 'nope'), 1000)).toEqual({ content: '', omitted: 'unreadable' });
  });
});
