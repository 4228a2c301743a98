/**
 * Copies a codon's `outputFiles` out of the agent root into the output directory, keeping their paths
 * relative to the root (a later copy overwrites). Each file is resolved through src/platform/confine first: a
 * path through a symlink out of the agent root (the data directory's link included) is skipped with
 * why, never followed. Symlinks inside the root are followed and the file they lead to is copied;
 * directories are not copied themselves (`dir/**` names their files).
 */
import { copyFile, glob, lstat, mkdir, rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import { confinePath, describeRefusal, realRoot } from '../../platform/confine/index.ts';
import { selectOutputs } from './select.ts';

export type CopyOutputsResult = {
  /** Relative paths copied, sorted. */
  copied: string[];
  /** Matching paths not copied, and why. */
  skipped: Array<{ file: string; reason: string }>;
  /** Globs that matched no file. */
  unmatched: string[];
};

export async function copyOutputs(options: {
  agentRoot: string;
  outputDir: string;
  globs: readonly string[];
}): Promise<CopyOutputsResult> {
  const root = await realRoot(options.agentRoot);
  const hits: Array<{ glob: string; paths: string[] }> = [];
  for (const pattern of options.globs) {
    const paths: string[] = [];
    for await (const rel of glob(pattern, { cwd: root, exclude: (name) => name === '.git' })) paths.push(rel);
    hits.push({ glob: pattern, paths });
  }
  const selection = selectOutputs(hits);
  const result: CopyOutputsResult = { copied: [], skipped: [], unmatched: selection.unmatched };
  let outRoot: string | undefined;
  for (const rel of selection.files) {
    const from = await confinePath(root, rel);
    if (!from.ok) {
      result.skipped.push({ file: rel, reason: describeRefusal(from.refusal, root) });
      continue;
    }
    const info = await lstat(from.real).catch(() => undefined);
    if (info?.isDirectory()) continue;
    if (!info?.isFile()) {
      result.skipped.push({ file: rel, reason: 'not a regular file' });
      continue;
    }
    try {
      if (outRoot === undefined) {
        await mkdir(options.outputDir, { recursive: true });
        outRoot = await realRoot(options.outputDir);
      }
      // The output directory is the user's: a link in it is replaced, never written through.
      const to = await confinePath(outRoot, rel, { followFinal: false });
      if (!to.ok) {
        result.skipped.push({
          file: rel,
          reason: describeRefusal(to.refusal, outRoot, 'the output directory'),
        });
        continue;
      }
      await mkdir(dirname(to.real), { recursive: true });
      if ((await lstat(to.real).catch(() => undefined))?.isSymbolicLink()) await rm(to.real);
      await copyFile(from.real, to.real);
      result.copied.push(rel);
    } catch (error) {
      result.skipped.push({ file: rel, reason: (error as Error).message });
    }
  }
  return result;
}
