/**
 * What went wrong when a write to the execution directory failed, in words a person can act on.
 * Pure: an error (errno, SQLite, or the text a git process printed) in, a kind and a sentence out.
 */

export type StorageFaultKind = 'disk-full' | 'read-only' | 'io-error' | 'unwritable';

const ERRNO: Record<string, { kind: StorageFaultKind; words: string }> = {
  ENOSPC: { kind: 'disk-full', words: 'No space left on device' },
  EDQUOT: { kind: 'disk-full', words: 'Disk quota exceeded' },
  EROFS: { kind: 'read-only', words: 'Read-only file system' },
  EIO: { kind: 'io-error', words: 'Input/output error' },
  EFBIG: { kind: 'io-error', words: 'File too large' },
  EACCES: { kind: 'unwritable', words: 'Permission denied' },
  EPERM: { kind: 'unwritable', words: 'Operation not permitted' },
};

// SQLite primary result codes (the low byte of an extended code).
const SQLITE_KINDS: Record<number, StorageFaultKind> = {
  8: 'read-only', // SQLITE_READONLY
  10: 'io-error', // SQLITE_IOERR
  13: 'disk-full', // SQLITE_FULL
  14: 'unwritable', // SQLITE_CANTOPEN
};

// What the C library, SQLite and git print for each (git reports most write failures as text).
const TEXT_KINDS: Array<[RegExp, StorageFaultKind]> = [
  [/no space left on device|database or disk is full|disk quota exceeded/i, 'disk-full'],
  [/read-only file system|readonly database/i, 'read-only'],
  [/input\/output error|disk i\/o error|file too large/i, 'io-error'],
];

/** The words the C library uses for each kind: the detail when the error has none of its own. */
const STRERROR: Record<StorageFaultKind, string> = {
  'disk-full': 'No space left on device',
  'read-only': 'Read-only file system',
  'io-error': 'Input/output error',
  unwritable: 'Permission denied',
};

type ErrorLike = { code?: unknown; errcode?: unknown; errstr?: unknown; message?: unknown };

/** The kind of storage fault an error (or a process's error text) shows, if it shows one. */
export function faultKindOf(error: unknown): StorageFaultKind | undefined {
  if (typeof error === 'string') return kindOfText(error);
  if (typeof error !== 'object' || error === null) return undefined;
  const e = error as ErrorLike;
  const errno = typeof e.code === 'string' ? ERRNO[e.code] : undefined;
  if (errno) return errno.kind;
  if (e.code === 'ERR_SQLITE_ERROR' && typeof e.errcode === 'number') {
    const kind = SQLITE_KINDS[e.errcode & 0xff];
    if (kind) return kind;
  }
  return typeof e.message === 'string' ? kindOfText(e.message) : undefined;
}

function kindOfText(text: string): StorageFaultKind | undefined {
  return TEXT_KINDS.find(([pattern]) => pattern.test(text))?.[1];
}

/** The error's own short words (SQLite's errstr, errno's message without the syscall noise). */
export function faultDetail(error: unknown, kind: StorageFaultKind): string {
  if (typeof error === 'object' && error !== null) {
    const e = error as ErrorLike;
    if (typeof e.errstr === 'string' && e.errstr) return e.errstr;
    const errno = typeof e.code === 'string' ? ERRNO[e.code] : undefined;
    if (errno) return errno.words;
  }
  return STRERROR[kind];
}

/** "disk full at /x/.ribosome/ribosome.db: database or disk is full". */
export function describeFault(kind: StorageFaultKind, path: string, detail = STRERROR[kind]): string {
  switch (kind) {
    case 'disk-full':
      return `disk full at ${path}: ${detail}`;
    case 'read-only':
      return `read-only file system at ${path}: ${detail}`;
    case 'io-error':
      return `I/O error at ${path}: ${detail}`;
    case 'unwritable':
      return `cannot write ${path}: ${detail}`;
  }
}
