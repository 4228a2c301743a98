import { copyFile, glob, mkdir, rename, rm, stat, unlink } from 'node:fs/promises';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { z } from 'zod';
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

async function move(from: string, to: string): Promise<void> {
  await mkdir(dirname(to), { recursive: true });
  try {
    await rename(from, to);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EXDEV') throw error;
    await copyFile(from, to);
    await unlink(from);
  }
}

/**
 * Moves the files matching `globs` from the agent root to `rigArchive/<codonId>/`, keeping their
 * relative paths. Files that cannot move are reported, not thrown.
 */
export async function archiveFiles(options: {
  agentRoot: string;
  rigArchive: string;
  codonId: string;
  globs: readonly string[];
}): Promise<{ archived: string[]; failed: string[]; archiveDir: string }> {
  const archiveDir = join(options.rigArchive, options.codonId);
  const matched = new Set<string>();
  for (const pattern of options.globs) {
    for await (const rel of glob(pattern, { cwd: options.agentRoot })) {
      const abs = inside(options.agentRoot, rel);
      if (!abs || rel.split(sep).includes('.git')) continue;
      if ((await stat(abs).catch(() => undefined))?.isFile()) matched.add(relative(options.agentRoot, abs));
    }
  }
  const archived: string[] = [];
  const failed: string[] = [];
  for (const rel of [...matched].sort()) {
    try {
      await move(join(options.agentRoot, rel), join(archiveDir, rel));
      archived.push(rel);
    } catch {
      failed.push(rel);
    }
  }
  return { archived, failed, archiveDir };
}

/** Moves archived files back into the agent root (a rollback undoing the archiving codon). */
export async function restoreArchive(
  entry: ArchiveEntry,
  agentRoot: string,
): Promise<{ restored: string[]; failed: string[] }> {
  const restored: string[] = [];
  const failed: string[] = [];
  for (const rel of entry.files) {
    const target = inside(agentRoot, rel);
    const source = inside(entry.archiveDir, rel);
    if (!target || !source) {
      failed.push(rel);
      continue;
    }
    try {
      await move(source, target);
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
