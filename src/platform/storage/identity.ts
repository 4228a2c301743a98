import { closeSync, fstatSync, openSync, readSync, statSync } from 'node:fs';

/**
 * Whether a file or directory the server keeps open is still the one at its path. A server that
 * writes into a database someone deleted (`rm -rf .ribosome`) or replaced goes on "succeeding" into
 * an inode nobody will ever read again: SQLite in WAL mode does not notice. These checks do, for a
 * few syscalls each.
 */

/** How a watched path was lost: `deleted` (gone, or unlinked while open), `replaced` (another file is there, or its content no longer starts as it must). */
export type LossKind = 'deleted' | 'replaced';

export type IdentityLoss = { kind: LossKind; path: string; what: string };

/** The facts one check looks at. */
export type IdentityFacts = {
  /** The open descriptor's file, as fstat sees it now. */
  opened: { dev: number; ino: number; nlink: number };
  /** What the path names now; null when nothing is there. */
  atPath: { dev: number; ino: number } | null;
  /** The file's first bytes are still what they must be (true when nothing is required). */
  headerIntact: boolean;
};

/** Pure: the loss the facts show, if any. */
export function judgeIdentity(facts: IdentityFacts): LossKind | undefined {
  if (facts.atPath === null) return 'deleted';
  // Another file at the path (the opened one then has no link left): replaced, as `mv` does.
  if (facts.atPath.dev !== facts.opened.dev || facts.atPath.ino !== facts.opened.ino) return 'replaced';
  if (facts.opened.nlink === 0) return 'deleted';
  return facts.headerIntact ? undefined : 'replaced';
}

/** The words of a loss: "the journal database /x/.ribosome/ribosome.db was deleted while the server ran". */
export function describeLoss(loss: IdentityLoss): string {
  const how =
    loss.kind === 'deleted'
      ? 'was deleted'
      : 'was replaced or overwritten (it is no longer the file the server opened)';
  return `${loss.what} ${loss.path} ${how} while the server ran`;
}

/** SQLite's database files begin with these 16 bytes. */
export const SQLITE_HEADER = Buffer.from('SQLite format 3\0', 'latin1');

/**
 * A path held open (a file or a directory) and checked against what is there now. Opening fails
 * quietly (undefined) when the path does not exist yet.
 */
export class WatchedPath {
  readonly path: string;
  readonly what: string;
  readonly #fd: number;
  readonly #header: Buffer | undefined;
  #closed = false;

  private constructor(path: string, what: string, fd: number, header: Buffer | undefined) {
    this.path = path;
    this.what = what;
    this.#fd = fd;
    this.#header = header;
  }

  /** `header`: bytes the file must keep starting with (a database's). */
  static open(path: string, what: string, header?: Buffer): WatchedPath | undefined {
    try {
      return new WatchedPath(path, what, openSync(path, 'r'), header);
    } catch {
      return undefined;
    }
  }

  /** The loss, if the path no longer names the file opened; never throws. */
  check(): IdentityLoss | undefined {
    if (this.#closed) return undefined;
    try {
      const opened = fstatSync(this.#fd);
      const now = statSync(this.path, { throwIfNoEntry: false });
      const kind = judgeIdentity({
        opened,
        atPath: now ? { dev: now.dev, ino: now.ino } : null,
        headerIntact: this.#headerIntact(),
      });
      return kind ? { kind, path: this.path, what: this.what } : undefined;
    } catch {
      // A parent made unreadable, a descriptor gone: not a loss this check can name.
      return undefined;
    }
  }

  #headerIntact(): boolean {
    const header = this.#header;
    if (!header) return true;
    const bytes = Buffer.alloc(header.length);
    const read = readSync(this.#fd, bytes, 0, header.length, 0);
    return read === header.length && bytes.equals(header);
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    try {
      closeSync(this.#fd);
    } catch {
      // Closed already: nothing held.
    }
  }
}
