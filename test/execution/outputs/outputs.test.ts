/** outputFiles: which files the globs name (pure) and the copy out of the agent root. */

import { existsSync } from 'node:fs';
import { mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { copyablePath, copyOutputs, selectOutputs } from '../../../src/execution/outputs/index.ts';
import { makeTempRoot, type TempRoot } from '../../agents/helpers/temp-root.ts';

describe('selectOutputs', () => {
  it('unions, sorts and dedupes; leaves out .git, the root and paths climbing out; names empty globs', () => {
    expect(
      selectOutputs([
        { glob: 'dist/**', paths: ['dist', 'dist/b.js', 'dist/a.js'] },
        { glob: '*.md', paths: ['README.md', 'dist/../README.md'] },
        { glob: '**/config', paths: ['.git/config', 'sub/.git/config'] },
        { glob: 'none/*', paths: [] },
      ]),
    ).toEqual({ files: ['README.md', 'dist', 'dist/a.js', 'dist/b.js'], unmatched: ['**/config', 'none/*'] });
  });

  it.each([
    ['a/b.txt', 'a/b.txt'],
    ['./a', 'a'],
    ['.', undefined],
    ['../x', undefined],
    ['/etc/passwd', undefined],
    ['.git/HEAD', undefined],
    ['a/.git/x', undefined],
    ['.gitignore', '.gitignore'],
    ['ribosome-data', undefined],
    ['ribosome-data/in.txt', undefined],
    ['./ribosome-data/in.txt', undefined],
    ['sub/ribosome-data/in.txt', 'sub/ribosome-data/in.txt'],
    ['ribosome-data.txt', 'ribosome-data.txt'],
  ])('copyablePath(%s) = %s', (path, expected) => {
    expect(copyablePath(path)).toBe(expected);
  });
});

describe('copyOutputs', () => {
  let temp: TempRoot;
  beforeEach(async () => {
    temp = await makeTempRoot();
  });
  afterEach(() => temp.cleanup());

  it('copies matching files keeping their paths, overwrites, follows no link out of the root', async () => {
    const { root, dir } = temp;
    const out = join(dir, 'output');
    await mkdir(join(root, 'dist/sub'), { recursive: true });
    await mkdir(join(root, '.git'));
    await mkdir(join(dir, 'data'));
    await writeFile(join(root, 'dist/a.txt'), 'A');
    await writeFile(join(root, 'dist/sub/b.txt'), 'B');
    await writeFile(join(root, '.git/config'), 'git');
    await writeFile(join(dir, 'data/secret.txt'), 'outside');
    await writeFile(join(dir, 'outside.txt'), 'outside');
    await symlink(join(dir, 'data'), join(root, 'ribosome-data'));
    await symlink(join(dir, 'outside.txt'), join(root, 'dist/leak.txt'));
    await symlink('a.txt', join(root, 'dist/alias.txt'));
    const result = await copyOutputs({
      agentRoot: root,
      outputDir: out,
      globs: ['dist/**', 'ribosome-data/*', '.git/*', 'nothing/*.x'],
    });
    expect(result.copied).toEqual(['dist/a.txt', 'dist/alias.txt', 'dist/sub/b.txt']);
    // The data directory's link is never an output: left out, so its glob matched nothing.
    expect(result.skipped.map((s) => s.file)).toEqual(['dist/leak.txt']);
    expect(result.unmatched).toEqual(['ribosome-data/*', '.git/*', 'nothing/*.x']);
    expect(await readFile(join(out, 'dist/sub/b.txt'), 'utf8')).toBe('B');
    expect(await readFile(join(out, 'dist/alias.txt'), 'utf8')).toBe('A');
    expect(existsSync(join(out, 'dist/leak.txt'))).toBe(false);
    expect(existsSync(join(out, 'ribosome-data'))).toBe(false);

    // A later copy overwrites; a link the user left in the output directory is replaced, not written through.
    await writeFile(join(root, 'dist/a.txt'), 'A2');
    await symlink(join(dir, 'outside.txt'), join(out, 'dist/sub/b.txt.tmp'));
    await writeFile(join(root, 'dist/sub/b.txt.tmp'), 'new');
    await copyOutputs({ agentRoot: root, outputDir: out, globs: ['dist/**'] });
    expect(await readFile(join(out, 'dist/a.txt'), 'utf8')).toBe('A2');
    expect(await readFile(join(out, 'dist/sub/b.txt.tmp'), 'utf8')).toBe('new');
    expect(await readFile(join(dir, 'outside.txt'), 'utf8')).toBe('outside');
  });

  it('"**" leaves the data directory\'s link out without a word', async () => {
    const { root, dir } = temp;
    await mkdir(join(dir, 'data'));
    for (const name of ['a.txt', 'b.txt', 'c.txt']) await writeFile(join(dir, 'data', name), name);
    await symlink(join(dir, 'data'), join(root, 'ribosome-data'));
    await writeFile(join(root, 'r.txt'), 'R');
    const result = await copyOutputs({ agentRoot: root, outputDir: join(dir, 'output'), globs: ['**'] });
    expect(result).toEqual({ copied: ['r.txt'], skipped: [], unmatched: [] });
  });
});
