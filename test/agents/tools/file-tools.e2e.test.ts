import { execFileSync } from 'node:child_process';
import { link, lstat, mkdir, readFile, readlink, symlink, writeFile } from 'node:fs/promises';
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

describe('confinement: dangling symlinks, links out and hard links', () => {
  /** An outside file, a hard link to it, a symlink to it and a dangling symlink out, all in the root. */
  async function traps() {
    const outside = join(temp.dir, 'outside.txt');
    await writeFile(outside, 'original\n');
    await link(outside, join(temp.root, 'hard.txt'));
    await symlink(outside, join(temp.root, 'out.txt'));
    await symlink('../created-outside.txt', join(temp.root, 'danglink'));
    await symlink('..', join(temp.root, 'updir'));
    return outside;
  }
  const untouched = async (outside: string) => {
    expect(await readFile(outside, 'utf8')).toBe('original\n');
    await expect(lstat(join(temp.dir, 'created-outside.txt'))).rejects.toThrow();
  };

  it('Write refuses a dangling symlink out: the outside file is not created', async () => {
    const outside = await traps();
    const result = await writeTool.execute({ file_path: 'danglink', content: 'x' }, ctx());
    expect(result).toEqual({
      isError: true,
      content: `refused: danglink is a symlink to ${join(temp.dir, 'created-outside.txt')}, outside the agent root ${temp.root}. Tools may only touch files inside it.`,
    });
    expect(
      await writeTool.execute({ file_path: 'updir/created-outside.txt', content: 'x' }, ctx()),
    ).toMatchObject({ isError: true, content: expect.stringContaining('refused: updir is a symlink to') });
    await untouched(outside);
  });

  it('Read, Write and Edit refuse a symlink out', async () => {
    const outside = await traps();
    for (const outcome of [
      await readTool.execute({ file_path: 'out.txt' }, ctx()),
      await writeTool.execute({ file_path: 'out.txt', content: 'x' }, ctx()),
      await editTool.execute({ file_path: 'out.txt', old_string: 'original', new_string: 'x' }, ctx()),
    ]) {
      expect(outcome).toMatchObject({
        isError: true,
        content: expect.stringContaining('refused: out.txt is a symlink to'),
      });
      expect(outcome.content).not.toContain('original');
    }
    await untouched(outside);
  });

  it('Write and Edit refuse a file with other hard links; Read may read it', async () => {
    const outside = await traps();
    const refused = { isError: true, content: expect.stringContaining('refused: hard.txt has 2 hard links') };
    expect(await writeTool.execute({ file_path: 'hard.txt', content: 'x' }, ctx())).toMatchObject(refused);
    expect(
      await editTool.execute({ file_path: 'hard.txt', old_string: 'original', new_string: 'x' }, ctx()),
    ).toMatchObject(refused);
    await untouched(outside);
    expect(await readTool.execute({ file_path: 'hard.txt' }, ctx())).toEqual({
      isError: false,
      content: '     1\toriginal',
    });
  });

  it('writes through a symlink that stays inside, keeping the link', async () => {
    await writeFile(join(temp.root, 'target.txt'), 'one');
    await symlink('target.txt', join(temp.root, 'alias.txt'));
    await symlink('new-target.txt', join(temp.root, 'dangling-inside'));
    expect(await writeTool.execute({ file_path: 'alias.txt', content: 'two' }, ctx())).toMatchObject({
      isError: false,
    });
    expect(await readlink(join(temp.root, 'alias.txt'))).toBe('target.txt');
    expect(await readFile(join(temp.root, 'target.txt'), 'utf8')).toBe('two');
    await writeTool.execute({ file_path: 'dangling-inside', content: 'new' }, ctx());
    expect(await readFile(join(temp.root, 'new-target.txt'), 'utf8')).toBe('new');
  });

  it('refuses what is not a regular file instead of blocking on it', async () => {
    execFileSync('mkfifo', [join(temp.root, 'pipe')]);
    expect(await readTool.execute({ file_path: 'pipe' }, ctx())).toMatchObject({
      isError: true,
      content: 'pipe is not a regular file.',
    });
    expect(await writeTool.execute({ file_path: 'pipe', content: 'x' }, ctx())).toMatchObject({
      isError: true,
    });
    await mkdir(join(temp.root, 'dir'));
    expect(await writeTool.execute({ file_path: 'dir', content: 'x' }, ctx())).toMatchObject({
      isError: true,
      content: 'dir is a directory.',
    });
  });
});
