import { createHash, randomBytes } from 'node:crypto';
import { mkdir, open, rename, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { deflateSync } from 'node:zlib';
import { IDENTITY } from './git-env.ts';

/**
 * A checkpoint commit written by the store itself instead of a `git commit-tree` process: the same
 * bytes (a test holds it to commit-tree's SHA), as a loose object, fsynced as core.fsync=committed has
 * git do. A checkpoint of an unchanged tree then runs one git (`status`), not five: each git spawned
 * from the server costs a fork of its whole address space (1-2 ms of CPU at 150-250 MB, more wall time
 * on a busy machine) plus git's own start.
 */

/** git's signature time: seconds since the epoch and the local offset (`+0100`), as commit-tree writes. */
export function gitDate(date: Date): string {
  const offset = -date.getTimezoneOffset();
  const abs = Math.abs(offset);
  const hhmm = `${String(Math.floor(abs / 60)).padStart(2, '0')}${String(abs % 60).padStart(2, '0')}`;
  return `${Math.floor(date.getTime() / 1000)} ${offset < 0 ? '-' : '+'}${hhmm}`;
}

/** The body of a commit object, exactly as `git commit-tree <tree> [-p <parent>] -F -` makes it. */
export function commitBody(args: {
  tree: string;
  parent: string | null;
  message: string;
  date: string;
}): Buffer {
  const who = `${IDENTITY.name} <${IDENTITY.email}> ${args.date}`;
  const head = [`tree ${args.tree}`, ...(args.parent ? [`parent ${args.parent}`] : [])];
  return Buffer.from(`${head.join('\n')}\nauthor ${who}\ncommitter ${who}\n\n${args.message}`, 'utf8');
}

/** The object's id and its loose form (`<type> <size>\0<body>`, deflated). */
export function looseObject(type: 'commit', body: Buffer): { sha: string; data: Buffer } {
  const raw = Buffer.concat([Buffer.from(`${type} ${body.length}\0`), body]);
  return { sha: createHash('sha1').update(raw).digest('hex'), data: deflateSync(raw, { level: 1 }) };
}

/**
 * Writes a loose object as git does: a temporary file in its fan-out directory, fsynced when `durable`,
 * renamed into place (an object of that id already there has the same bytes: replacing it is harmless).
 */
export async function writeLooseObject(
  gitDir: string,
  object: { sha: string; data: Buffer },
  durable: boolean,
): Promise<void> {
  const dir = join(gitDir, 'objects', object.sha.slice(0, 2));
  await mkdir(dir, { recursive: true });
  const temp = join(dir, `tmp_obj_${randomBytes(6).toString('hex')}`);
  const file = await open(temp, 'wx', 0o444);
  try {
    await file.writeFile(object.data);
    if (durable) await file.sync();
  } catch (error) {
    await file.close().catch(() => {});
    await unlink(temp).catch(() => {});
    throw error;
  }
  await file.close();
  await rename(temp, join(dir, object.sha.slice(2))).catch(async (error: unknown) => {
    await unlink(temp).catch(() => {});
    throw error;
  });
}
