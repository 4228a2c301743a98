/**
 * Rig setup copies, the archive and the rollback's rig cleanup never act through a symlink that
 * leads out of their root: an earlier codon's agent (with Bash) may have made one anywhere.
 */
import {
  existsSync,
  linkSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  rmdirSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { archiveFiles, restoreArchive } from '../../src/engine/archive.ts';
import { removeRigDirs } from '../../src/engine/rig-dirs.ts';
import { runRigSetup } from '../../src/engine/rig-setup.ts';
import { tempDir } from '../helpers/server-process.ts';

const temps: Array<{ remove(): void }> = [];
afterEach(() => {
  for (const t of temps.splice(0)) t.remove();
});

/** An agent root, a plan folder with files to copy, and an `outside/` directory next to them. */
function layout() {
  const t = tempDir();
  temps.push(t);
  const dir = realpathSync(t.path);
  const root = join(dir, 'agentRoot');
  const plan = join(dir, 'plan');
  const outside = join(dir, 'outside');
  for (const d of [root, join(plan, 'assets'), outside]) mkdirSync(d, { recursive: true });
  writeFileSync(join(plan, 'assets/style.md'), 'be nice');
  symlinkSync('style.md', join(plan, 'assets/alias.md'));
  writeFileSync(join(plan, 'notes.txt'), 'notes');
  writeFileSync(join(outside, 'kept.txt'), 'outside');
  return { dir, root, plan, outside, rigArchive: join(dir, 'rigArchive') };
}

const copy = (from: string, to: string) => ({ type: 'copy' as const, from, to, allowFailure: false });

describe('rig setup copy', () => {
  it.each([
    ['into a symlinked directory that leads out', 'docs', 'docs'],
    ['below a symlinked directory that leads out', 'docs/sub/notes.txt', 'docs'],
  ])('refuses to copy %s, and writes nothing there', async (_, to, link) => {
    const { dir, root, plan, outside } = layout();
    symlinkSync(outside, join(root, 'docs'));
    const result = await runRigSetup({
      agentRoot: root,
      executionDir: dir,
      onOutput: () => {},
      steps: [copy(join(plan, 'notes.txt'), to)],
    });
    expect(result).toMatchObject({
      ok: false,
      message: `rig setup step 1 (copy ${join(plan, 'notes.txt')} -> ${to}) failed: refused: ${link} is a symlink to ${outside}, outside the agent root ${root}`,
    });
    expect(existsSync(join(outside, 'notes.txt'))).toBe(false);
    expect(existsSync(join(outside, 'sub'))).toBe(false);
  });

  it('refuses a dangling symlink out at the destination, and a link out where the copy keeps its name', async () => {
    const { dir, root, plan, outside } = layout();
    symlinkSync('../outside/new-dir', join(root, 'docs'));
    symlinkSync(join(outside, 'kept.txt'), join(root, 'notes.txt'));
    const result = await runRigSetup({
      agentRoot: root,
      executionDir: dir,
      onOutput: () => {},
      steps: [
        { ...copy(join(plan, 'assets'), 'docs'), allowFailure: true },
        copy(join(plan, 'notes.txt'), '.'),
      ],
    });
    expect(result).toMatchObject({
      ok: false,
      step: 1,
      message: expect.stringContaining('refused: notes.txt'),
    });
    expect(existsSync(join(outside, 'new-dir'))).toBe(false);
    expect(readFileSync(join(outside, 'kept.txt'), 'utf8')).toBe('outside');
  });

  it('copies through a symlink that stays inside; replaces a hard link without touching its other name', async () => {
    const { dir, root, plan, outside } = layout();
    mkdirSync(join(root, 'real'));
    symlinkSync('real', join(root, 'alias'));
    linkSync(join(outside, 'kept.txt'), join(root, 'notes.txt'));
    const result = await runRigSetup({
      agentRoot: root,
      executionDir: dir,
      onOutput: () => {},
      steps: [copy(join(plan, 'notes.txt'), 'alias'), copy(join(plan, 'notes.txt'), '.')],
    });
    expect(result.ok).toBe(true);
    expect(readFileSync(join(root, 'real/notes.txt'), 'utf8')).toBe('notes');
    expect(readFileSync(join(root, 'notes.txt'), 'utf8')).toBe('notes');
    expect(readFileSync(join(outside, 'kept.txt'), 'utf8')).toBe('outside');
  });

  it('keeps symlinks inside the copied tree as symlinks', async () => {
    const { dir, root, plan } = layout();
    const result = await runRigSetup({
      agentRoot: root,
      executionDir: dir,
      onOutput: () => {},
      steps: [copy(join(plan, 'assets'), 'docs')],
    });
    expect(result.ok).toBe(true);
    expect(lstatSync(join(root, 'docs/alias.md')).isSymbolicLink()).toBe(true);
  });
});

describe('archive', () => {
  it('refuses files behind a symlinked directory that leads out, saying why; the outside files stay', async () => {
    const { root, outside, rigArchive } = layout();
    writeFileSync(join(outside, 'a.log'), 'outside log');
    symlinkSync(outside, join(root, 'logs'));
    writeFileSync(join(root, 'own.log'), 'mine');
    const result = await archiveFiles({
      agentRoot: root,
      rigArchive,
      codonId: 'c',
      globs: ['logs/*.log', '*.log'],
    });
    expect(result).toEqual({
      archived: ['own.log'],
      failed: ['logs/a.log'],
      refused: [
        {
          file: 'logs/a.log',
          reason: `refused: logs is a symlink to ${outside}, outside the agent root ${root}`,
        },
      ],
      archiveDir: join(rigArchive, 'c'),
    });
    expect(readFileSync(join(outside, 'a.log'), 'utf8')).toBe('outside log');
    expect(existsSync(join(rigArchive, 'c/logs'))).toBe(false);
  });

  it('moves a matching symlink as the link itself, never what it points to', async () => {
    const { root, outside, rigArchive } = layout();
    symlinkSync(join(outside, 'kept.txt'), join(root, 'out.log'));
    symlinkSync('../outside/none', join(root, 'dangling.log'));
    symlinkSync(outside, join(root, 'dir.log'));
    const result = await archiveFiles({ agentRoot: root, rigArchive, codonId: 'c', globs: ['*.log'] });
    expect(result).toMatchObject({ archived: ['dangling.log', 'out.log'], failed: [] });
    expect(readlinkSync(join(rigArchive, 'c/out.log'))).toBe(join(outside, 'kept.txt'));
    expect(readFileSync(join(outside, 'kept.txt'), 'utf8')).toBe('outside');
    // A link to a directory is not a file to archive.
    expect(lstatSync(join(root, 'dir.log')).isSymbolicLink()).toBe(true);
  });

  it('refuses to archive into a symlink out of rigArchive, and restores only inside the agent root', async () => {
    const { root, outside, rigArchive } = layout();
    mkdirSync(rigArchive);
    symlinkSync(outside, join(rigArchive, 'c'));
    writeFileSync(join(root, 'a.log'), 'a');
    const refused = await archiveFiles({ agentRoot: root, rigArchive, codonId: 'c', globs: ['*.log'] });
    expect(refused.refused).toEqual([
      { file: 'a.log', reason: `refused: c is a symlink to ${outside}, outside rigArchive ${rigArchive}` },
    ]);
    expect(existsSync(join(root, 'a.log'))).toBe(true);
    expect(existsSync(join(outside, 'a.log'))).toBe(false);

    mkdirSync(join(root, 'logs'));
    writeFileSync(join(root, 'logs/b.log'), 'b');
    const archived = await archiveFiles({ agentRoot: root, rigArchive, codonId: 'd', globs: ['logs/*.log'] });
    expect(archived.archived).toEqual(['logs/b.log']);
    // Meanwhile logs/ became a link out: the file does not go back through it.
    rmdirSync(join(root, 'logs'));
    symlinkSync(outside, join(root, 'logs'));
    const entry = {
      runId: 'r',
      codonId: 'd',
      archiveDir: archived.archiveDir,
      files: ['logs/b.log'],
      at: '',
    };
    expect(await restoreArchive(entry, root)).toEqual({ restored: [], failed: ['logs/b.log'] });
    expect(existsSync(join(outside, 'b.log'))).toBe(false);
  });
});

describe('rollback rig cleanup', () => {
  it('removes what rig setup made, a symlink as a link, and leaves directories behind a link out alone', async () => {
    const { root, outside } = layout();
    mkdirSync(join(root, 'made/deep'), { recursive: true });
    mkdirSync(join(outside, 'sub'));
    symlinkSync(outside, join(root, 'through'));
    symlinkSync(outside, join(root, 'link'));
    const result = await removeRigDirs(root, ['made', 'through/sub', 'link', '..', '.']);
    expect(result.successfulCleanups).toEqual(['made', 'link']);
    expect(result.failedCleanups.map((f) => f.directory)).toEqual(['through/sub', '..', '.']);
    expect(result.failedCleanups[0]?.error).toContain('refused: through is a symlink to');
    expect(existsSync(join(root, 'made'))).toBe(false);
    expect(existsSync(join(root, 'link'))).toBe(false);
    expect(existsSync(join(outside, 'sub'))).toBe(true);
    expect(existsSync(join(outside, 'kept.txt'))).toBe(true);
  });
});
