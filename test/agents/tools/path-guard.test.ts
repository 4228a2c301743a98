import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { resolveInside } from '../../../src/agents/builtin/tools/path-guard.ts';
import { makeTempRoot, type TempRoot } from '../helpers/temp-root.ts';

let temp: TempRoot;
beforeEach(async () => {
  temp = await makeTempRoot();
});
afterEach(() => temp.cleanup());

describe('resolveInside', () => {
  it('accepts relative and absolute paths inside the root, existing or not', async () => {
    const inside = (rel: string) => ({ ok: true, path: join(temp.root, rel), real: join(temp.root, rel) });
    expect(await resolveInside(temp.root, 'a/b.txt')).toEqual(inside('a/b.txt'));
    expect(await resolveInside(temp.root, join(temp.root, 'c.txt'))).toEqual(inside('c.txt'));
    expect(await resolveInside(temp.root, 'x/../y.txt')).toEqual(inside('y.txt'));
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

  it('refuses a dangling symlink out, naming the link and where it leads', async () => {
    await symlink('../not-yet.txt', join(temp.root, 'danglink'));
    expect(await resolveInside(temp.root, 'danglink')).toEqual({
      ok: false,
      message: `refused: danglink is a symlink to ${join(temp.dir, 'not-yet.txt')}, outside the agent root ${temp.root}. Tools may only touch files inside it.`,
    });
  });

  it('allows symlinks that stay inside, and gives where they lead', async () => {
    await mkdir(join(temp.root, 'real'));
    await symlink(join(temp.root, 'real'), join(temp.root, 'alias'));
    expect(await resolveInside(temp.root, 'alias/file.txt')).toEqual({
      ok: true,
      path: join(temp.root, 'alias/file.txt'),
      real: join(temp.root, 'real/file.txt'),
    });
  });
});
