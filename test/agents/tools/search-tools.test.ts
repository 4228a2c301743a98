import { mkdir, symlink, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { globTool } from '../../../src/agents/builtin/tools/glob.ts';
import { grepTool, passesGlob } from '../../../src/agents/builtin/tools/grep.ts';
import { makeTempRoot, type TempRoot } from '../helpers/temp-root.ts';

let temp: TempRoot;
beforeEach(async () => {
  temp = await makeTempRoot();
  const { root } = temp;
  await mkdir(join(root, 'src/lib'), { recursive: true });
  await mkdir(join(root, '.git'));
  await mkdir(join(root, 'node_modules/pkg'), { recursive: true });
  await writeFile(join(root, 'src/a.ts'), 'export const a = 1;\n// TODO: more\n');
  await writeFile(join(root, 'src/lib/b.ts'), 'export const b = 2;\n');
  await writeFile(join(root, 'README.md'), '# Title\nTODO list\n');
  await writeFile(join(root, '.git/config'), 'TODO in git\n');
  await writeFile(join(root, 'node_modules/pkg/index.ts'), 'TODO in deps\n');
  await writeFile(join(root, 'bin.dat'), Buffer.from([0x54, 0x4f, 0x44, 0x4f, 0x00, 0x01]));
  await writeFile(join(temp.dir, 'outside.ts'), 'TODO outside\n');
  await symlink(temp.dir, join(root, 'up'));
  // Distinct mtimes so "newest first" is observable.
  await utimes(join(root, 'src/a.ts'), 1000, 1000);
  await utimes(join(root, 'src/lib/b.ts'), 2000, 2000);
});
afterEach(() => temp.cleanup());
const ctx = () => ({ root: temp.root });

describe('Glob', () => {
  it('lists matching files newest first, relative to the root', async () => {
    expect(await globTool.execute({ pattern: 'src/**/*.ts' }, ctx())).toEqual({
      content: 'src/lib/b.ts\nsrc/a.ts',
      isError: false,
    });
    expect((await globTool.execute({ pattern: '*.ts', path: 'src/lib' }, ctx())).content).toBe(
      'src/lib/b.ts',
    );
    expect((await globTool.execute({ pattern: '*.nothing' }, ctx())).content).toBe('No files found');
  });

  it('never returns files outside the root, whatever the pattern', async () => {
    expect((await globTool.execute({ pattern: '../*' }, ctx())).content).toBe('No files found');
    expect((await globTool.execute({ pattern: 'up/*.ts' }, ctx())).content).toBe('No files found');
    // Node's glob reads `[.][.]` as `..`; a symlinked file out is not listed either.
    expect((await globTool.execute({ pattern: '[.][.]/*.ts' }, ctx())).content).toBe('No files found');
    await symlink(join(temp.dir, 'outside.ts'), join(temp.root, 'link.ts'));
    expect((await globTool.execute({ pattern: '*.ts' }, ctx())).content).toBe('No files found');
    expect(await globTool.execute({ pattern: '*', path: '..' }, ctx())).toMatchObject({ isError: true });
  });
});

describe('Grep', () => {
  it('lists files with matches by default, skipping .git, node_modules, binaries and links', async () => {
    expect(await grepTool.execute({ pattern: 'TODO' }, ctx())).toEqual({
      content: 'README.md\nsrc/a.ts',
      isError: false,
    });
  });

  it('shows matching lines, counts, filters by glob, ignores case on request', async () => {
    expect((await grepTool.execute({ pattern: 'export', output_mode: 'content' }, ctx())).content).toBe(
      'src/a.ts:1:export const a = 1;\nsrc/lib/b.ts:1:export const b = 2;',
    );
    expect(
      (await grepTool.execute({ pattern: 'todo', '-i': true, glob: '*.md', output_mode: 'count' }, ctx()))
        .content,
    ).toBe('README.md:1');
    expect((await grepTool.execute({ pattern: 'const', path: 'src/lib/b.ts' }, ctx())).content).toBe(
      'src/lib/b.ts',
    );
    expect((await grepTool.execute({ pattern: 'zzz' }, ctx())).content).toBe('No matches found');
  });

  it('reports a bad regex or an outside path as a tool error', async () => {
    expect(await grepTool.execute({ pattern: '(' }, ctx())).toMatchObject({
      isError: true,
      content: expect.stringContaining('Invalid regular expression'),
    });
    expect(await grepTool.execute({ pattern: 'TODO', path: '../outside.ts' }, ctx())).toMatchObject({
      isError: true,
    });
    expect(await grepTool.execute({ pattern: 'TODO', path: 'up/outside.ts' }, ctx())).toMatchObject({
      isError: true,
    });
  });

  it('passesGlob matches names for bare patterns and paths for patterns with a slash', () => {
    expect(passesGlob('src/a.ts', '*.ts')).toBe(true);
    expect(passesGlob('src/a.ts', 'src/*.ts')).toBe(true);
    expect(passesGlob('src/lib/b.ts', 'src/*.ts')).toBe(false);
    expect(passesGlob('x.md', undefined)).toBe(true);
  });
});

describe('the data directory (read-only, linked into the root)', () => {
  const withData = async () => {
    const data = join(temp.dir, 'data');
    await mkdir(join(data, 'sub'), { recursive: true });
    await writeFile(join(data, 'input.txt'), 'TODO from the data\n');
    await writeFile(join(data, 'sub/deep.md'), 'deep TODO\n');
    await symlink(data, join(temp.root, 'ribosome-data'));
    return { root: temp.root, readOnly: [data] };
  };

  it('Glob lists files through the link, from the root or from the link', async () => {
    const context = await withData();
    expect(
      (await globTool.execute({ pattern: 'ribosome-data/**/*' }, context)).content.split('\n').sort(),
    ).toEqual(['ribosome-data/input.txt', 'ribosome-data/sub/deep.md']);
    expect((await globTool.execute({ pattern: '*.txt', path: 'ribosome-data' }, context)).content).toBe(
      'ribosome-data/input.txt',
    );
    // Without the data directory given as read-only, the link is one out of the root like any other.
    expect((await globTool.execute({ pattern: 'ribosome-data/*' }, ctx())).content).toBe('No files found');
  });

  it('Grep searches it through the link; other links out stay refused', async () => {
    const context = await withData();
    expect(await grepTool.execute({ pattern: 'TODO', path: 'ribosome-data' }, context)).toEqual({
      content: 'ribosome-data/input.txt\nribosome-data/sub/deep.md',
      isError: false,
    });
    expect(
      (
        await grepTool.execute(
          { pattern: 'TODO', path: 'ribosome-data/input.txt', output_mode: 'content' },
          context,
        )
      ).content,
    ).toBe('ribosome-data/input.txt:1:TODO from the data');
    expect(await grepTool.execute({ pattern: 'TODO', path: 'up' }, context)).toMatchObject({ isError: true });
    expect((await globTool.execute({ pattern: 'up/*.ts' }, context)).content).toBe('No files found');
    expect(await grepTool.execute({ pattern: 'TODO', path: 'ribosome-data' }, ctx())).toMatchObject({
      isError: true,
    });
  });
});
