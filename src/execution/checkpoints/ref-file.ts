import { appendFile, mkdir, open, readFile, rename, unlink } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { gitDate } from './commit-object.ts';
import { IDENTITY } from './git-env.ts';

/**
 * Moves a branch of the store the way `git update-ref <ref> <new> <old>` does in a files-backend
 * repository (the store's: it is created by `git init` with no ref-format setting), without a git
 * process: git's lock protocol (`<ref>.lock` created exclusively: a git running meanwhile waits or
 * fails on it, as with another git), compare-and-swap against `from`, the new value written, fsynced
 * when `durable`, and renamed over the loose ref (atomic: a reader sees the old or the new commit).
 * A ref only in `packed-refs` (after `git gc`) is read there; the loose file written then overrides
 * the packed line, as git's own update does. The branch's reflog gets git's line (HEAD's does not).
 */

export const NO_COMMIT = '0000000000000000000000000000000000000000';

export async function moveRef(
  gitDir: string,
  args: { ref: string; to: string; from: string | null; reflog: string; durable: boolean; now?: Date },
): Promise<void> {
  const path = join(gitDir, args.ref);
  const lock = `${path}.lock`;
  await mkdir(dirname(path), { recursive: true });
  const file = await open(lock, 'wx', 0o666).catch((error: NodeJS.ErrnoException) => {
    throw error.code === 'EEXIST'
      ? new Error(`Unable to create '${lock}': File exists (another git is writing ${args.ref})`)
      : error;
  });
  let locked = true;
  try {
    const current = await readRef(gitDir, args.ref);
    if (current !== args.from) {
      // git's words, which refMovedMeanwhile (commits.ts) knows.
      throw new Error(
        args.from === null
          ? `cannot lock ref '${args.ref}': reference already exists`
          : `cannot lock ref '${args.ref}': is at ${current ?? 'nothing'} but expected ${args.from}`,
      );
    }
    await file.writeFile(`${args.to}\n`);
    if (args.durable) await file.sync();
    await file.close();
    const log = join(gitDir, 'logs', args.ref);
    await mkdir(dirname(log), { recursive: true });
    const who = `${IDENTITY.name} <${IDENTITY.email}> ${gitDate(args.now ?? new Date())}`;
    await appendFile(log, `${args.from ?? NO_COMMIT} ${args.to} ${who}\t${reflogMessage(args.reflog)}\n`);
    await rename(lock, path);
    locked = false;
  } finally {
    if (locked) {
      await file.close().catch(() => {});
      await unlink(lock).catch(() => {});
    }
  }
}

/** The commit a branch names (its loose file, else its `packed-refs` line), or null when it has none. */
export async function readRef(gitDir: string, ref: string): Promise<string | null> {
  const loose = await readFile(join(gitDir, ref), 'utf8').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT' || error.code === 'ENOTDIR') return null;
    throw error;
  });
  if (loose !== null) return loose.trim();
  const packed = await readFile(join(gitDir, 'packed-refs'), 'utf8').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return '';
    throw error;
  });
  return packedRef(packed, ref);
}

/** The value of `ref` in the text of a `packed-refs` file (`<sha> <ref>` lines), or null. */
export function packedRef(packed: string, ref: string): string | null {
  for (const line of packed.split('\n')) {
    if (line.startsWith('#') || line.startsWith('^')) continue;
    const space = line.indexOf(' ');
    if (space > 0 && line.slice(space + 1) === ref) return line.slice(0, space);
  }
  return null;
}

/** As git's copy_reflog_msg: whitespace runs (line breaks too) become one space, ends trimmed. */
function reflogMessage(message: string): string {
  return message.replace(/\s+/g, ' ').trim();
}

/**
 * Points HEAD (always a loose file) at a commit (`<sha>`, detached) or a branch (`ref: <ref>`), as
 * `git update-ref --no-deref HEAD` and `git symbolic-ref HEAD` do: under git's `HEAD.lock`, renamed
 * into place. Not fsynced (git does not fsync a symbolic ref either): HEAD lost in a crash is left
 * where it was, which names no checkpoint's branch (they name theirs). No reflog line for HEAD.
 */
export async function writeHead(gitDir: string, target: string): Promise<void> {
  const path = join(gitDir, 'HEAD');
  const lock = `${path}.lock`;
  const file = await open(lock, 'wx', 0o666).catch((error: NodeJS.ErrnoException) => {
    throw error.code === 'EEXIST' ? new Error(`Unable to create '${lock}': File exists`) : error;
  });
  let locked = true;
  try {
    await file.writeFile(`${target}\n`);
    await file.close();
    await rename(lock, path);
    locked = false;
  } finally {
    if (locked) {
      await file.close().catch(() => {});
      await unlink(lock).catch(() => {});
    }
  }
}
