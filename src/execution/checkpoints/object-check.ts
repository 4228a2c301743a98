import { createHash } from 'node:crypto';
import { splitNul } from './changed-paths.ts';

/**
 * The pure half of a restore's object check (verify-objects.ts runs the gits): which objects a
 * restore reads, and whether each one's bytes hash to its name. git itself does not check this when
 * it writes a blob into a work tree, so an object file overwritten in the store would be restored
 * as if it were the checkpoint's.
 */

/** One object `git cat-file --batch-check` described: its name, type and size, or missing. */
export type ObjectHeader = { oid: string; type: string; size: number } | { oid: string; missing: true };

/** An object whose bytes do not match its name (or that is not there at all). */
export type CorruptObject = { oid: string; why: 'missing' | 'hash-mismatch' | 'truncated'; path?: string };

const ZERO_OID = /^0+$/;
/** Gitlinks (a submodule's commit) are not in the store and are never written. */
const GITLINK = '160000';

/**
 * The blobs a restore would write: from `git diff-index -z --raw --no-renames <checkpoint>` (no
 * `--cached`), every path where the agent root differs from the checkpoint, with the checkpoint's
 * object for it. Paths the checkpoint lacks (a restore deletes them) have no object.
 */
export function blobsToWrite(rawDiff: Buffer): Array<{ oid: string; path: string }> {
  const parts = splitNul(rawDiff);
  const blobs: Array<{ oid: string; path: string }> = [];
  for (let i = 0; i + 1 < parts.length; i += 2) {
    // ":<src mode> <dst mode> <src oid> <dst oid> <status>": src is the checkpoint's side.
    const [srcMode, , srcOid] = parts[i]!.toString('latin1').slice(1).split(' ');
    if (!srcMode || !srcOid || ZERO_OID.test(srcOid) || srcMode === GITLINK) continue;
    blobs.push({ oid: srcOid, path: parts[i + 1]!.toString('utf8') });
  }
  return blobs;
}

/** Every tree below the checkpoint's root, from `git ls-tree -r -d -z <checkpoint>`. */
export function treesBelow(lsTree: Buffer): Array<{ oid: string; path: string }> {
  return splitNul(lsTree).flatMap((entry) => {
    const tab = entry.indexOf(0x09);
    const [mode, type, oid] = entry.toString('latin1', 0, tab).split(' ');
    return type === 'tree' && mode && oid ? [{ oid, path: entry.toString('utf8', tab + 1) }] : [];
  });
}

/** `git cat-file --batch-check` lines: `<oid> <type> <size>` or `<name> missing`. */
export function parseBatchCheck(output: Buffer): ObjectHeader[] {
  return output
    .toString('latin1')
    .split('\n')
    .filter((line) => line.length > 0)
    .map((line) => {
      const [oid = '', type = '', size = ''] = line.split(' ');
      return type === 'missing' ? { oid, missing: true as const } : { oid, type, size: Number(size) };
    });
}

/**
 * Checks `git cat-file --batch` output (`<oid> <type> <size>\n<bytes>\n` per object) against the
 * names asked for, in order: each object's `<type> <size>\0<bytes>` must hash to its name (SHA-1,
 * or SHA-256 for 64-digit names). Returns the objects that do not.
 */
export function checkBatch(output: Buffer, asked: readonly string[]): CorruptObject[] {
  const corrupt: CorruptObject[] = [];
  let at = 0;
  for (const oid of asked) {
    const eol = output.indexOf(0x0a, at);
    if (eol < 0) {
      corrupt.push({ oid, why: 'truncated' });
      continue;
    }
    const [name = '', type = '', size = ''] = output.toString('latin1', at, eol).split(' ');
    if (type === 'missing' || name !== oid) {
      corrupt.push({ oid, why: 'missing' });
      at = eol + 1;
      continue;
    }
    const bytes = Number(size);
    const start = eol + 1;
    const end = start + bytes;
    if (!Number.isSafeInteger(bytes) || end > output.length) {
      corrupt.push({ oid, why: 'truncated' });
      at = output.length;
      continue;
    }
    if (objectName(type, output.subarray(start, end), oid.length) !== oid) {
      corrupt.push({ oid, why: 'hash-mismatch' });
    }
    at = end + 1;
  }
  return corrupt;
}

/** The name git gives an object of this type and content. */
export function objectName(type: string, content: Buffer, nameLength = 40): string {
  return createHash(nameLength === 64 ? 'sha256' : 'sha1')
    .update(`${type} ${content.length}\0`)
    .update(content)
    .digest('hex');
}

/** Splits objects into groups of at most `maxBytes` of content each (one object alone may exceed it). */
export function groupBySize<T extends { size: number }>(objects: readonly T[], maxBytes: number): T[][] {
  const groups: T[][] = [];
  let current: T[] = [];
  let bytes = 0;
  for (const object of objects) {
    if (current.length > 0 && bytes + object.size > maxBytes) {
      groups.push(current);
      current = [];
      bytes = 0;
    }
    current.push(object);
    bytes += object.size;
  }
  if (current.length > 0) groups.push(current);
  return groups;
}

/** The words of a CHECKPOINT_CORRUPT error: at most five objects named, with their paths. */
export function describeCorrupt(sha: string, corrupt: readonly CorruptObject[]): string {
  const named = corrupt.slice(0, 5).map((c) => {
    const what =
      c.why === 'missing'
        ? 'is missing'
        : c.why === 'truncated'
          ? 'could not be read'
          : 'does not match its hash';
    return `${c.oid.slice(0, 12)}${c.path !== undefined ? ` (${c.path || 'the root tree'})` : ''} ${what}`;
  });
  const more = corrupt.length > 5 ? ` and ${corrupt.length - 5} more` : '';
  return (
    `Checkpoint ${sha.slice(0, 12)} is corrupt in the checkpoint store: ${named.join('; ')}${more}. ` +
    'Nothing was restored; the agent root is as it was. Something wrote into .ribosome/checkpoints.git ' +
    '(`git fsck` there shows the damage).'
  );
}
