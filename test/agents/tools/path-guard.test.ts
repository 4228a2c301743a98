import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isInside, resolveInside } from '../../../src/agents/builtin/tools/path-guard.ts';
import { makeTempRoot, type TempRoot } from '../helpers/temp-root.ts';

let temp: TempRoot;
beforeEach(async () => {
  temp = await makeTempRoot();
});
afterEach(() => temp.cleanup());

describe('isInside', () => {
  it('compares paths, not prefixes', () => {
    expect(isInside('/a/root', '/a/root')).toBe(true);
    expect(isInside('/a/root', '/a/root/x/y')).toBe(true);
    expect(isInside('/a/root', '/a/root/..foo')).toBe(true);
    expect(isInside('/a/root', '/a/rootother')).toBe(false);
    expect(isInside('/a/root', '/a')).toBe(false);
  });
});

describe('resolveInside', () => {
  it('accepts relative and absolute paths inside the root, existing or not', async () => {
    expect(await resolveInside(temp.root, 'a/b.txt')).toEqual({ ok: true, path: join(temp.root, 'a/b.txt') });
    expect(await resolveInside(temp.root, join(temp.root, 'c.txt'))).toEqual({
      ok: true,
      path: join(temp.root, 'c.txt'),
    });
    expect(await resolveInside(temp.root, 'x/../y.txt')).toEqual({
      ok: true,
      path: join(temp.root, 'y.txt'),
    });
  });

  it('refuses paths that climb out or are absolute elsewhere', async () => {
    for (const path of ['../outside.txt', '/etc/passwd', 'a/../../b', temp.dir]) {
      const guarded = await resolveInside(temp.root, path);
      expect(guarded.ok).toBe(false);
      if (!guarded.ok) expect(guarded.message).toContain('outside the agent root');
    }
  });

  it('refuses symlinks that lead out, to files and through directories, even to files not yet there', async () => {
    await writeFile(join(temp.dir, 'secret.txt'), 'secret');
    await symlink(join(temp.dir, 'secret.txt'), join(temp.root, 'link.txt'));
    await symlink(temp.dir, join(temp.root, 'up'));
    expect((await resolveInside(temp.root, 'link.txt')).ok).toBe(false);
    expect((await resolveInside(temp.root, 'up/secret.txt')).ok).toBe(false);
    expect((await resolveInside(temp.root, 'up/new/file.txt')).ok).toBe(false);
  });

  it('allows symlinks that stay inside', async () => {
    await mkdir(join(temp.root, 'real'));
    await symlink(join(temp.root, 'real'), join(temp.root, 'alias'));
    expect((await resolveInside(temp.root, 'alias/file.txt')).ok).toBe(true);
  });
});
