/**
 * A rig setup `copy` step: a file or directory from the plan's folder into the agent root. The
 * destination is resolved first (src/platform/confine): an earlier codon may have left a symlink where the
 * copy goes, and a copy through it must not write outside the agent root. Inside the copied tree
 * `cp` follows no destination links (it replaces files, and refuses to merge a directory into a link).
 * A symlink in the source is copied as the link itself, its text verbatim (a relative link stays
 * relative, so `node_modules/.bin` keeps working): it is never followed, wherever it leads.
 */
import { cp, lstat, mkdir, readlink, stat, symlink, unlink } from 'node:fs/promises';
import { basename, dirname, join, relative } from 'node:path';
import type { ResolvedRigStep } from '../plan/index.ts';
import { confinePath, describeRefusal, isInside, realRoot } from '../platform/confine/index.ts';

export type CopyStep = Extract<ResolvedRigStep, { type: 'copy' }>;

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}

/** Where the copy goes: the real path inside the agent root, or why it may not go there. */
async function destination(
  root: string,
  step: CopyStep,
  sourceIsDirectory: boolean,
): Promise<{ ok: true; target: string } | { ok: false; message: string }> {
  const to = await confinePath(root, step.to);
  if (!to.ok) return { ok: false, message: describeRefusal(to.refusal, root) };
  // Into a directory (the root, or one that exists) the source keeps its name.
  const intoDirectory =
    step.to === '.' || (!sourceIsDirectory && (await stat(to.real).catch(() => undefined))?.isDirectory());
  if (!intoDirectory) return { ok: true, target: to.real };
  const named = await confinePath(root, relative(root, join(to.real, basename(step.from))));
  return named.ok
    ? { ok: true, target: named.real }
    : { ok: false, message: describeRefusal(named.refusal, root) };
}

/**
 * A `cp` filter: a symlink is placed here, as written, and skipped by `cp` (which would make a
 * relative link absolute, and fails on a second copy over a dangling one). `dest` lies in a directory
 * `cp` made or checked (a real directory, no link), so the link replaces only what stands there: a
 * file or a link, never a directory.
 */
async function copyLinkItself(source: string, dest: string): Promise<boolean> {
  if (!(await lstat(source)).isSymbolicLink()) return true;
  const text = await readlink(source);
  const there = await lstat(dest).catch(() => undefined);
  if (there?.isDirectory())
    throw new Error(`cannot replace the directory ${dest} with the symlink ${source}`);
  if (there) await unlink(dest);
  await symlink(text, dest);
  return false;
}

/** Copies; the outermost directory it creates in the agent root goes into `created` (relative). */
export async function copyStep(
  step: CopyStep,
  agentRoot: string,
  created: Set<string>,
): Promise<{ ok: true } | { ok: false; message: string }> {
  try {
    const root = await realRoot(agentRoot);
    const source = await stat(step.from);
    const dest = await destination(root, step, source.isDirectory());
    if (!dest.ok) return dest;
    const { target } = dest;
    // Record the outermost directory this copy creates.
    let outer: string | undefined;
    for (
      let dir = source.isDirectory() ? target : dirname(target);
      isInside(root, dir) && dir !== root;
      dir = dirname(dir)
    ) {
      if (!(await exists(dir))) outer = dir;
    }
    await mkdir(dirname(target), { recursive: true });
    await cp(step.from, target, { recursive: true, force: true, filter: copyLinkItself });
    if (outer) created.add(relative(root, outer));
    return { ok: true };
  } catch (error) {
    return { ok: false, message: (error as Error).message };
  }
}
