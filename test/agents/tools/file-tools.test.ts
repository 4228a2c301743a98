import { mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { applyEdit, editTool } from '../../../src/agents/builtin/tools/edit.ts';
import { numberLines, readTool } from '../../../src/agents/builtin/tools/read.ts';
import { writeTool } from '../../../src/agents/builtin/tools/write.ts';
import { makeTempRoot, type TempRoot } from '../helpers/temp-root.ts';

let temp: TempRoot;
beforeEach(async () => {
  temp = await makeTempRoot();
});
afterEach(() => temp.cleanup());
const ctx = () => ({ root: temp.root });

describe('Read', () => {
  it('numbers lines like cat -n, with offset and limit', async () => {
    await writeFile(join(temp.root, 'a.txt'), 'one\ntwo\nthree\n');
    expect(await readTool.execute({ file_path: 'a.txt' }, ctx())).toEqual({
      content: '     1\tone\n     2\ttwo\n     3\tthree',
      isError: false,
    });
    expect((await readTool.execute({ file_path: 'a.txt', offset: 2, limit: 1 }, ctx())).content).toBe(
      '     2\ttwo',
    );
    expect((await readTool.execute({ file_path: 'a.txt', offset: 9 }, ctx())).content).toContain(
      'no lines at offset 9',
    );
  });

  it('truncates very long lines', () => {
    expect(numberLines('x'.repeat(2100))).toContain('... [line truncated]');
  });

  it('reports missing files, directories, escapes and bad input as tool errors', async () => {
    await mkdir(join(temp.root, 'dir'));
    await writeFile(join(temp.dir, 'outside.txt'), 'secret');
    expect(await readTool.execute({ file_path: 'nope.txt' }, ctx())).toMatchObject({ isError: true });
    expect(await readTool.execute({ file_path: 'dir' }, ctx())).toMatchObject({
      isError: true,
      content: expect.stringContaining('directory'),
    });
    expect(await readTool.execute({ file_path: '../outside.txt' }, ctx())).toMatchObject({
      isError: true,
      content: expect.stringContaining('outside the agent root'),
    });
    expect(await readTool.execute({ path: 'a.txt' }, ctx())).toMatchObject({
      isError: true,
      content: expect.stringContaining('InputValidationError'),
    });
    expect(await readTool.execute({ file_path: 'a', offset: 0 }, ctx())).toMatchObject({ isError: true });
  });
});

describe('Write', () => {
  it('creates files (and parent directories), then overwrites them', async () => {
    expect(await writeTool.execute({ file_path: 'deep/er/new.txt', content: 'hi' }, ctx())).toEqual({
      content: 'File created successfully at: deep/er/new.txt',
      isError: false,
    });
    expect(await readFile(join(temp.root, 'deep/er/new.txt'), 'utf8')).toBe('hi');
    expect(
      (await writeTool.execute({ file_path: join(temp.root, 'deep/er/new.txt'), content: 'bye' }, ctx()))
        .content,
    ).toContain('updated successfully');
    expect(await readFile(join(temp.root, 'deep/er/new.txt'), 'utf8')).toBe('bye');
  });

  it('refuses to write outside the root, through a symlink too', async () => {
    await symlink(temp.dir, join(temp.root, 'up'));
    expect(await writeTool.execute({ file_path: '../x.txt', content: 'x' }, ctx())).toMatchObject({
      isError: true,
    });
    expect(await writeTool.execute({ file_path: 'up/x.txt', content: 'x' }, ctx())).toMatchObject({
      isError: true,
    });
    await expect(readFile(join(temp.dir, 'x.txt'))).rejects.toThrow();
  });
});

describe('applyEdit', () => {
  it('replaces a unique match, literally', () => {
    expect(applyEdit('a $ b', '$', '$&$1', false)).toEqual({ ok: true, content: 'a $&$1 b', count: 1 });
  });
  it('refuses ambiguous, missing and no-op edits; replace_all takes every match', () => {
    expect(applyEdit('x x', 'x', 'y', false)).toMatchObject({
      ok: false,
      message: expect.stringContaining('2 times'),
    });
    expect(applyEdit('x x', 'x', 'y', true)).toEqual({ ok: true, content: 'y y', count: 2 });
    expect(applyEdit('abc', 'z', 'y', false)).toMatchObject({
      ok: false,
      message: expect.stringContaining('not found'),
    });
    expect(applyEdit('abc', 'a', 'a', false)).toMatchObject({ ok: false });
  });
});

describe('Edit', () => {
  it('edits a file in place', async () => {
    await writeFile(join(temp.root, 'f.txt'), 'hello world\n');
    expect(
      await editTool.execute({ file_path: 'f.txt', old_string: 'world', new_string: 'there' }, ctx()),
    ).toMatchObject({
      isError: false,
    });
    expect(await readFile(join(temp.root, 'f.txt'), 'utf8')).toBe('hello there\n');
  });

  it('reports ambiguous matches and missing files without touching anything', async () => {
    await writeFile(join(temp.root, 'f.txt'), 'a a');
    expect(
      await editTool.execute({ file_path: 'f.txt', old_string: 'a', new_string: 'b' }, ctx()),
    ).toMatchObject({ isError: true });
    expect(await readFile(join(temp.root, 'f.txt'), 'utf8')).toBe('a a');
    expect(
      await editTool.execute({ file_path: 'g.txt', old_string: 'a', new_string: 'b' }, ctx()),
    ).toMatchObject({ isError: true });
    expect(
      await editTool.execute({ file_path: '../f.txt', old_string: 'a', new_string: 'b' }, ctx()),
    ).toMatchObject({ isError: true });
  });
});
