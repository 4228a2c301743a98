import { copyFile, glob, lstat, mkdir, readlink, rename, rm, stat, symlink, unlink } from 'node:fs/promises';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { z } from 'zod';
import { confinePath, describeRefusal, realRoot } from '../confine/index.ts';
import { JsonListFile } from './json-list-file.ts';

export const ArchiveEntry = z.object({
  runId: z.string(),
  codonId: z.string(),
  archiveDir: z.string(),
  files: z.array(z.string()),
  at: z.string(),
  /** The checkpoint taken right after the archive: a rollback to before it brings the files back. */
  checkpointSha: z.string().optional(),
});
export type ArchiveEntry = z.infer<typeof ArchiveEntry>;

/** Paths relative to `root` that stay inside it. */
function inside(root: string, rel: string): string | undefined {
  const abs = resolve(root, rel);
  return abs === root || !abs.startsWith(root + sep) ? undefined : abs;
}

/**
 * Where `rel` sits under `root` with its directories resolved, or why it may not be touched: a
 * directory on its way is a symlink leading out of `root` (an earlier codon may have made one). A
 * symlink in the last component is kept: it is the link that moves, never what it points to.
 */
async function place(
  root: string,
  rel: string,
  rootName: string,
): Promise<{ ok: true; path: string } | { ok: false; reason: string }> {
  const real = await realRoot(root);
  const confined = await confinePath(real, rel, { followFinal: false });
  if (!confined.ok) return { ok: false, reason: describeRefusal(confined.refusal, real, rootName) };
  return { ok: true, path: confined.real };
}

/** Renames; across file systems copies then unlinks, a symlink as a symlink (never what it points to). */
async function move(from: string, to: string): Promise<void> {
  await mkdir(dirname(to), { recursive: true });
  try {
    await rename(from, to);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EXDEV') throw error;
    const info = await lstat(from);
    if (info.isSymbolicLink()) await symlink(await readlink(from), to);
    else await copyFile(from, to);
    await unlink(from);
  }
}

/** A file to archive: a regular file, or a symlink (moved as the link) unless it leads to a directory. */
async function archivable(path: string): Promise<boolean> {
  const info = await lstat(path).catch(() => undefined);
  if (info?.isSymbolicLink()) return !(await stat(path).catch(() => undefined))?.isDirectory();
  return info?.isFile() === true;
}

export type ArchiveResult = {
  archived: string[];
  /** Every file that did not move, the refused ones included. */
  failed: string[];
  /** Files reached through a symlink out of the agent root (or into one out of rigArchive/), and why. */
  refused: Array<{ file: string; reason: string }>;
  archiveDir: string;
};

/**
 * Moves the files matching `globs` from the agent root to `rigArchive/<codonId>/`, keeping their
 * relative paths. A matching symlink moves as a link; a file behind a symlinked directory that leads
 * out of the agent root is refused (what lies there is not the run's). Files that cannot move are
 * reported, not thrown.
 */
export async function archiveFiles(options: {
  agentRoot: string;
  rigArchive: string;
  codonId: string;
  globs: readonly string[];
}): Promise<ArchiveResult> {
  const archiveDir = join(options.rigArchive, options.codonId);
  const matched = new Set<string>();
  for (const pattern of options.globs) {
    for await (const rel of glob(pattern, { cwd: options.agentRoot })) {
      const abs = inside(options.agentRoot, rel);
      if (abs && !rel.split(sep).includes('.git')) matched.add(relative(options.agentRoot, abs));
    }
  }
  const result: ArchiveResult = { archived: [], failed: [], refused: [], archiveDir };
  const refuse = (file: string, reason: string) => {
    result.failed.push(file);
    result.refused.push({ file, reason });
  };
  for (const rel of [...matched].sort()) {
    const from = await place(options.agentRoot, rel, 'the agent root');
    if (!from.ok) {
      refuse(rel, from.reason);
      continue;
    }
    if (!(await archivable(from.path))) continue;
    const to = await place(options.rigArchive, join(options.codonId, rel), 'rigArchive');
    if (!to.ok) {
      refuse(rel, to.reason);
      continue;
    }
    try {
      await move(from.path, to.path);
      result.archived.push(rel);
    } catch {
      result.failed.push(rel);
    }
  }
  return result;
}

/** Moves archived files back into the agent root (a rollback undoing the archiving codon). */
export async function restoreArchive(
  entry: ArchiveEntry,
  agentRoot: string,
): Promise<{ restored: string[]; failed: string[] }> {
  const restored: string[] = [];
  const failed: string[] = [];
  for (const rel of entry.files) {
    const target = inside(agentRoot, rel) ? await place(agentRoot, rel, 'the agent root') : undefined;
    const source = inside(entry.archiveDir, rel)
      ? await place(entry.archiveDir, rel, 'the archive')
      : undefined;
    if (!target?.ok || !source?.ok) {
      failed.push(rel);
      continue;
    }
    try {
      await move(source.path, target.path);
      restored.push(rel);
    } catch {
      failed.push(rel);
    }
  }
  await rm(entry.archiveDir, { recursive: true, force: true }).catch(() => {});
  return { restored, failed };
}

/** `.ribosome/archive-manifest.json`: what moved where, so a rollback can bring it back. */
export class ArchiveManifest extends JsonListFile<ArchiveEntry> {
  constructor(file: string) {
    super(file, ArchiveEntry);
  }
}
