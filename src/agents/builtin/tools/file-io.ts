/**
 * Opening files for Read, Write and Edit, on a path the guard has resolved (path-guard.ts).
 * O_NOFOLLOW refuses a symlink swapped in since the check, O_NONBLOCK keeps a FIFO from blocking
 * the agent, and the checks are made on the open descriptor, so they hold for what is written.
 * A file with other hard links is never written: one may sit outside the agent root, and a write
 * in place would change it too (a hard link cannot be told apart from the file it names).
 */
import { constants } from 'node:fs';
import { type FileHandle, open } from 'node:fs/promises';

type Result<T> = ({ ok: true } & T) | { ok: false; message: string };

const NOFOLLOW = constants.O_NOFOLLOW ?? 0;
const NONBLOCK = constants.O_NONBLOCK ?? 0;
const READ = constants.O_RDONLY | NOFOLLOW | NONBLOCK;
const WRITE = constants.O_WRONLY | NOFOLLOW | NONBLOCK;

/** The message for an error `open` may give on a checked path; undefined for the unexpected ones. */
function openFailure(err: unknown, shown: string): string | undefined {
  switch ((err as NodeJS.ErrnoException).code) {
    case 'ENOENT':
      return `File does not exist: ${shown}`;
    case 'EISDIR':
      return `${shown} is a directory.`;
    case 'ELOOP':
      return `refused: ${shown} became a symlink after it was checked.`;
    case 'ENXIO':
      return `${shown} is not a regular file.`;
    default:
      return undefined;
  }
}

async function opened<T>(
  real: string,
  shown: string,
  flags: number,
  use: (handle: FileHandle) => Promise<Result<T>>,
): Promise<Result<T>> {
  let handle: FileHandle;
  try {
    handle = await open(real, flags, 0o666);
  } catch (err) {
    const message = openFailure(err, shown);
    if (message === undefined) throw err;
    return { ok: false, message };
  }
  try {
    return await use(handle);
  } finally {
    await handle.close();
  }
}

/** The UTF-8 text of the regular file at `real` (`shown` names it in messages). */
export function readText(real: string, shown: string): Promise<Result<{ text: string }>> {
  return opened<{ text: string }>(real, shown, READ, async (handle) => {
    const info = await handle.stat();
    if (info.isDirectory())
      return { ok: false, message: `${shown} is a directory; use Glob or Bash ls to list it.` };
    if (!info.isFile()) return { ok: false, message: `${shown} is not a regular file.` };
    return { ok: true, text: await handle.readFile('utf8') };
  });
}

/** Replaces the content of the regular file at `real`; creates it if it does not exist and `create`. */
export async function writeText(
  real: string,
  shown: string,
  content: string,
  { create = true } = {},
): Promise<Result<{ created: boolean }>> {
  const write =
    (created: boolean) =>
    async (handle: FileHandle): Promise<Result<{ created: boolean }>> => {
      const info = await handle.stat();
      if (!info.isFile()) return { ok: false, message: `${shown} is not a regular file.` };
      if (info.nlink > 1) return { ok: false, message: hardLinkRefusal(shown, info.nlink) };
      await handle.truncate(0);
      await handle.writeFile(content, 'utf8');
      return { ok: true, created };
    };
  if (!create) return opened(real, shown, WRITE, write(false));
  try {
    return await opened(real, shown, WRITE | constants.O_CREAT | constants.O_EXCL, write(true));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    return opened(real, shown, WRITE, write(false));
  }
}

function hardLinkRefusal(shown: string, links: number): string {
  return (
    `refused: ${shown} has ${links} hard links; a write would change every one of them, and one may be ` +
    'outside the agent root. Files with other hard links are not written.'
  );
}
