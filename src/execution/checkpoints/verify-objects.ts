import { fail, ok, type StoreResult } from './errors.ts';
import { type GitOutput, type GitRun, gitFailure } from './git-runner.ts';
import {
  blobsToWrite,
  type CorruptObject,
  checkBatch,
  describeCorrupt,
  groupBySize,
  type ObjectHeader,
  parseBatchCheck,
  treesBelow,
} from './object-check.ts';

/** How many bytes of objects one `cat-file --batch` hands over at most (memory, not speed). */
const BATCH_BYTES = 64 * 1024 * 1024;

/** git's words when it cannot read an object: the store is damaged, not the machine. */
const CORRUPT_WORDS =
  /corrupt|bad object|bad tree|hash mismatch|unable to (read|unpack|parse)|inflate|not a (tree|commit)|missing|invalid object/i;

export type Verified = { objects: number; bytes: number };

/**
 * Checks, before a restore writes anything, that what it will read from the store is what the
 * checkpoint recorded: the commit, every tree of it, and the blob of every path where the agent root
 * differs from it (the blobs a restore writes), each hashed again from its bytes. Unchanged files are
 * not read: the cost follows what the restore changes, plus the trees. A mismatch, a missing object
 * or an object git cannot read is CHECKPOINT_CORRUPT.
 */
export async function verifyCheckpointObjects(git: GitRun, sha: string): Promise<StoreResult<Verified>> {
  const [diff, lsTree] = await Promise.all([
    git(['diff-index', '-z', '--raw', '--no-renames', sha]),
    git(['ls-tree', '-r', '-d', '-z', sha]),
  ]);
  if (diff.code !== 0)
    return unreadable(sha, 'compare the checkpoint with the agent root (git diff-index)', diff);
  if (lsTree.code !== 0) return unreadable(sha, "list the checkpoint's trees (git ls-tree)", lsTree);

  const pathOf = new Map<string, string>();
  for (const { oid, path } of [...treesBelow(lsTree.stdout), ...blobsToWrite(diff.stdout)]) {
    if (!pathOf.has(oid)) pathOf.set(oid, path);
  }
  const rootTree = `${sha}^{tree}`;
  const names = [sha, rootTree, ...pathOf.keys()];
  const check = await git(['cat-file', '--batch-check'], { input: `${names.join('\n')}\n` });
  if (check.code !== 0) return unreadable(sha, 'look up the checkpoint objects (git cat-file)', check);
  const headers = parseBatchCheck(check.stdout);
  if (headers.length !== names.length)
    return unreadable(sha, 'look up the checkpoint objects (git cat-file)', check);
  const corrupt: CorruptObject[] = [];
  const present = new Map<string, number>();
  headers.forEach((header: ObjectHeader, i) => {
    // The second name is the root tree: its header names the tree the commit points at.
    const root = i === 1;
    if ('missing' in header) {
      corrupt.push({
        oid: root ? sha : header.oid,
        why: 'missing',
        ...at(root ? '' : pathOf.get(header.oid)),
      });
      return;
    }
    if (root) pathOf.set(header.oid, '');
    present.set(header.oid, header.size);
  });

  let bytes = 0;
  for (const group of groupBySize(
    [...present].map(([oid, size]) => ({ oid, size })),
    BATCH_BYTES,
  )) {
    const oids = group.map((o) => o.oid);
    const read = await git(['cat-file', '--batch'], { input: `${oids.join('\n')}\n` });
    if (read.code !== 0) return unreadable(sha, 'read the checkpoint objects (git cat-file)', read);
    bytes += read.stdout.length;
    for (const bad of checkBatch(read.stdout, oids)) corrupt.push({ ...bad, ...at(pathOf.get(bad.oid)) });
  }
  if (corrupt.length > 0) return fail('CHECKPOINT_CORRUPT', describeCorrupt(sha, corrupt));
  return ok({ objects: present.size, bytes });
}

const at = (path: string | undefined) => (path === undefined ? {} : { path });

/** A git that failed reading the store: CHECKPOINT_CORRUPT when its words say an object is damaged. */
function unreadable(sha: string, what: string, output: GitOutput): StoreResult<never> {
  if (output.spawnError === undefined && CORRUPT_WORDS.test(output.stderr)) {
    return fail(
      'CHECKPOINT_CORRUPT',
      `Checkpoint ${sha.slice(0, 12)} is corrupt in the checkpoint store: git could not ${what.replace(/ \(git [a-z-]+\)$/, '')}: ${output.stderr}. ` +
        'Nothing was restored; the agent root is as it was.',
    );
  }
  return gitFailure(what, output, 'RESTORE_FAILED');
}
