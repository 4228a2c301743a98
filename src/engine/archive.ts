import { copyFile, glob, lstat, mkdir, readlink, rename, stat, symlink, unlink } from 'node:fs/promises';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { z } from 'zod';
import { confinePath, describeRefusal, realRoot } from '../platform/confine/index.ts';
import { JsonListFile } from './json-list-file.ts';

export const ArchiveEntry = z.object({
  runId: z.string(),
  codonId: z.string(),
  archiveDir: z.string(),
  files: z.array(z.string()),
  at: z.string(),
  /** The codon's completed checkpoint, taken right before the archive (so it holds the files). */
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

/** Copies, a symlink as a symlink (never what it points to). */
async function copy(from: string, to: string): Promise<void> {
  await mkdir(dirname(to), { recursive: true });
  const info = await lstat(from);
  if (info.isSymbolicLink()) await symlink(await readlink(from), to);
  else await copyFile(from, to);
}

/** Each file of `entry` with where it sits in the agent root and in the archive, or undefined if refused. */
async function pairs(
  entry: ArchiveEntry,
  agentRoot: string,
): Promise<Array<{ rel: string; root?: string; archived?: string }>> {
  const out: Array<{ rel: string; root?: string; archived?: string }> = [];
  for (const rel of entry.files) {
    const target = inside(agentRoot, rel) ? await place(agentRoot, rel, 'the agent root') : undefined;
    const source = inside(entry.archiveDir, rel)
      ? await place(entry.archiveDir, rel, 'the archive')
      : undefined;
    out.push({
      rel,
      ...(target?.ok ? { root: target.path } : {}),
      ...(source?.ok ? { archived: source.path } : {}),
    });
  }
  return out;
}

/**
 * Copies archived files back into the agent root where it has none at their path (a rollback undoing
 * the archiving codon; the checkpoint restore after it decides what stays). The archive keeps its
 * copies: a rollback never deletes one, so a crash at any point of it loses nothing.
 */
export async function restoreArchive(
  entry: ArchiveEntry,
  agentRoot: string,
): Promise<{ restored: string[]; failed: string[] }> {
  const restored: string[] = [];
  const failed: string[] = [];
  for (const { rel, root, archived } of await pairs(entry, agentRoot)) {
    if (!root || !archived) {
      failed.push(rel);
      continue;
    }
    if (await lstat(root).catch(() => undefined)) continue;
    try {
      await copy(archived, root);
      restored.push(rel);
    } catch {
      failed.push(rel);
    }
  }
  return { restored, failed };
}

/**
 * Moves the files of `entry` from the agent root into its archive again: a rollback (or roll-forward)
 * to the archiving codon's completed checkpoint, which holds them, leaves the tree as the codon left it.
 */
export async function reArchive(entry: ArchiveEntry, agentRoot: string): Promise<string[]> {
  const moved: string[] = [];
  for (const { rel, root, archived } of await pairs(entry, agentRoot)) {
    if (!root || !archived || !(await archivable(root))) continue;
    try {
      await move(root, archived);
      moved.push(rel);
    } catch {
      // Left in the agent root: nothing is lost, the checkpoint holds it too.
    }
  }
  return moved;
}

/** Which files of `entry` are in the agent root now. */
export async function presentIn(entry: ArchiveEntry, agentRoot: string): Promise<string[]> {
  const present: string[] = [];
  for (const { rel, root } of await pairs(entry, agentRoot))
    if (root && (await lstat(root).catch(() => undefined))) present.push(rel);
  return present;
}

/** `.ribosome/archive-manifest.json`: what moved where, so a rollback can bring it back. */
export class ArchiveManifest extends JsonListFile<ArchiveEntry> {
  constructor(file: string) {
    super(file, ArchiveEntry);
  }
}
