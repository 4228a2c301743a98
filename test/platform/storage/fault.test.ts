import { mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { refMovedMeanwhile } from '../../../src/execution/checkpoints/commits.ts';
import { describeFault, faultDetail, faultKindOf } from '../../../src/platform/storage/fault.ts';
import { asStorageFault, StorageFault, StorageGuard } from '../../../src/platform/storage/guard.ts';
import { describeError, diagnose } from '../../../src/platform/storage/probe.ts';
import { tempDir } from '../../helpers/server-process.ts';

const errno = (code: string, message = `${code}: something, write`) =>
  Object.assign(new Error(message), { code });
// What node:sqlite throws: an extended result code and SQLite's own words.
const sqlite = (errcode: number, errstr: string) =>
  Object.assign(new Error(errstr), { code: 'ERR_SQLITE_ERROR', errcode, errstr });

describe('faultKindOf', () => {
  it.each([
    ['ENOSPC', errno('ENOSPC'), 'disk-full'],
    ['EDQUOT', errno('EDQUOT'), 'disk-full'],
    ['EROFS', errno('EROFS'), 'read-only'],
    ['EIO', errno('EIO'), 'io-error'],
    ['EFBIG', errno('EFBIG'), 'io-error'],
    ['EACCES', errno('EACCES'), 'unwritable'],
    ['SQLITE_FULL', sqlite(13, 'database or disk is full'), 'disk-full'],
    ['SQLITE_IOERR_WRITE', sqlite(778, 'disk I/O error'), 'io-error'],
    ['SQLITE_READONLY', sqlite(8, 'attempt to write a readonly database'), 'read-only'],
    ['SQLITE_CANTOPEN', sqlite(14, 'unable to open database file'), 'unwritable'],
    ['git: loose object', 'fatal: unable to write loose object file: No space left on device', 'disk-full'],
    ['git: read-only', 'error: could not write index: Read-only file system', 'read-only'],
  ])('%s', (_name, error, kind) => {
    expect(faultKindOf(error)).toBe(kind);
  });

  it.each([
    ['a constraint', sqlite(19, 'UNIQUE constraint failed: events.id')],
    ['a busy database', sqlite(5, 'database is locked')],
    ['a missing file', errno('ENOENT')],
    ['git losing a race', "cannot lock ref 'refs/heads/run/x': is at 1234 but expected 5678"],
    ['nothing', undefined],
  ])('not a storage fault: %s', (_name, error) => {
    expect(faultKindOf(error)).toBeUndefined();
  });
});

describe('describeFault / faultDetail', () => {
  it('says what happened where, in the words of the error when it has them', () => {
    expect(
      describeFault(
        'disk-full',
        '/x/ribosome.db',
        faultDetail(sqlite(13, 'database or disk is full'), 'disk-full'),
      ),
    ).toBe('disk full at /x/ribosome.db: database or disk is full');
    expect(describeFault('disk-full', '/x/checkpoints.git')).toBe(
      'disk full at /x/checkpoints.git: No space left on device',
    );
    expect(describeFault('read-only', '/x', faultDetail(errno('EROFS'), 'read-only'))).toBe(
      'read-only file system at /x: Read-only file system',
    );
    expect(describeFault('io-error', '/x', faultDetail(errno('EFBIG'), 'io-error'))).toBe(
      'I/O error at /x: File too large',
    );
  });
});

describe('diagnose and describeError', () => {
  const t = tempDir();
  afterAll(() => t.remove());

  it('keeps the error word for a full disk, and the error itself when the disk is fine', () => {
    expect(diagnose(errno('ENOSPC'), join(t.path, 'a.db'))?.message).toBe(
      `disk full at ${join(t.path, 'a.db')}: No space left on device`,
    );
    // An I/O error on a disk with room and writable stays an I/O error.
    expect(diagnose(sqlite(778, 'disk I/O error'), join(t.path, 'a.db'))?.message).toBe(
      `I/O error at ${join(t.path, 'a.db')}: disk I/O error`,
    );
    expect(diagnose(new Error('boom'), t.path)).toBeUndefined();
    expect(readdirSync(t.path)).toEqual([]); // the write probe leaves nothing
  });

  it('names the path the error carries', () => {
    const error = Object.assign(errno('ENOSPC'), { path: '/data/x.json' });
    expect(describeError(error, '/fallback')).toBe('disk full at /data/x.json: No space left on device');
    expect(describeError(new Error('plain'), '/fallback')).toBe('plain');
  });
});

describe('StorageGuard', () => {
  const t = tempDir();
  afterAll(() => t.remove());

  it('turns the first failed write into the fault, told once, later writes refused untried', async () => {
    const path = join(t.path, 'ribosome.db');
    mkdirSync(t.path, { recursive: true });
    const guard = new StorageGuard(path);
    const heard: StorageFault[] = [];
    guard.onFault((f) => heard.push(f));
    expect(guard.write('journal append', () => 1)).toBe(1);
    let thrown: unknown;
    try {
      guard.write('journal append', () => {
        throw sqlite(13, 'database or disk is full');
      });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(StorageFault);
    const fault = thrown as StorageFault;
    expect(fault).toMatchObject({
      code: 'STORAGE_FAILED',
      kind: 'disk-full',
      path,
      what: 'journal append',
      message: `disk full at ${path}: database or disk is full`,
    });
    // Told on a later tick, not from inside the failing write.
    expect(heard).toEqual([]);
    await Promise.resolve();
    expect(heard).toEqual([fault]);
    let ran = false;
    expect(() =>
      guard.write('state transition', () => {
        ran = true;
      }),
    ).toThrow(fault);
    expect(ran).toBe(false);
    await Promise.resolve();
    expect(heard).toHaveLength(1);
  });

  it('asStorageFault: only failed file or database operations that show a storage problem', () => {
    expect(asStorageFault('startup', '/x.db', sqlite(13, 'database or disk is full'))).toBeInstanceOf(
      StorageFault,
    );
    const plain = new Error('port in use');
    expect(asStorageFault('startup', '/x.db', plain)).toBe(plain);
    // Text alone is not enough: a message quoting git is left as it is.
    const quoted = new Error('checkpoints unavailable: No space left on device');
    expect(asStorageFault('startup', '/x.db', quoted)).toBe(quoted);
  });
});

describe('refMovedMeanwhile', () => {
  it('is a lost compare-and-swap, not a failed write', () => {
    expect(refMovedMeanwhile("cannot lock ref 'refs/heads/run/x': is at 1a but expected 2b")).toBe(true);
    expect(refMovedMeanwhile("cannot lock ref 'refs/heads/run/x': reference already exists")).toBe(true);
    expect(
      refMovedMeanwhile(
        "fatal: update_ref failed for ref 'refs/heads/x': cannot update ref 'refs/heads/x': couldn't write '/r.git/refs/heads/x.lock'",
      ),
    ).toBe(false);
  });
});
