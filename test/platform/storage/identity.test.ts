import { mkdirSync, mkdtempSync, renameSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { faultAdvice, StorageGuard } from '../../../src/platform/storage/guard.ts';
import { judgeIdentity, SQLITE_HEADER, WatchedPath } from '../../../src/platform/storage/identity.ts';

const dirs: string[] = [];
const watched: WatchedPath[] = [];
afterEach(() => {
  for (const w of watched.splice(0)) w.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function dbFile() {
  const dir = mkdtempSync(join(tmpdir(), 'ribosome-identity-'));
  dirs.push(dir);
  const file = join(dir, 'ribosome.db');
  writeFileSync(file, Buffer.concat([SQLITE_HEADER, Buffer.alloc(100)]));
  return { dir, file };
}

function watch(path: string, header?: Buffer): WatchedPath {
  const w = WatchedPath.open(path, 'the journal database', header);
  if (!w) throw new Error(`could not open ${path}`);
  watched.push(w);
  return w;
}

describe('judgeIdentity', () => {
  const opened = { dev: 1, ino: 7, nlink: 1 };
  it('sees the same file as intact, a missing path as deleted, another inode as replaced', () => {
    expect(judgeIdentity({ opened, atPath: { dev: 1, ino: 7 }, headerIntact: true })).toBeUndefined();
    expect(judgeIdentity({ opened, atPath: null, headerIntact: true })).toBe('deleted');
    expect(
      judgeIdentity({ opened: { ...opened, nlink: 0 }, atPath: { dev: 1, ino: 9 }, headerIntact: true }),
    ).toBe('replaced');
    expect(judgeIdentity({ opened, atPath: { dev: 2, ino: 7 }, headerIntact: true })).toBe('replaced');
  });
  it('sees an unlinked file as deleted, and a lost header as replaced', () => {
    expect(
      judgeIdentity({ opened: { ...opened, nlink: 0 }, atPath: { dev: 1, ino: 7 }, headerIntact: true }),
    ).toBe('deleted');
    expect(judgeIdentity({ opened, atPath: { dev: 1, ino: 7 }, headerIntact: false })).toBe('replaced');
  });
});

describe('WatchedPath', () => {
  it('finds nothing while the file stays', () => {
    const { file } = dbFile();
    expect(watch(file, SQLITE_HEADER).check()).toBeUndefined();
  });
  it('names a deleted file', () => {
    const { file } = dbFile();
    const w = watch(file, SQLITE_HEADER);
    rmSync(file);
    expect(w.check()).toEqual({ kind: 'deleted', path: file, what: 'the journal database' });
  });
  it('names a file replaced by another (mv over it) or emptied in place', () => {
    const { file } = dbFile();
    const w = watch(file, SQLITE_HEADER);
    writeFileSync(`${file}.new`, '');
    renameSync(`${file}.new`, file);
    expect(w.check()?.kind).toBe('replaced');

    const again = dbFile();
    const v = watch(again.file, SQLITE_HEADER);
    truncateSync(again.file, 0);
    expect(v.check()?.kind).toBe('replaced');
  });
  it('watches a directory: removed whole, it is deleted', () => {
    const { dir } = dbFile();
    const store = join(dir, 'checkpoints.git');
    mkdirSync(store);
    const w = watch(store);
    expect(w.check()).toBeUndefined();
    rmSync(store, { recursive: true });
    expect(w.check()?.kind).toBe('deleted');
  });
  it('is not opened for a path that does not exist', () => {
    expect(WatchedPath.open('/nonexistent/ribosome.db', 'x')).toBeUndefined();
  });
});

describe('StorageGuard with a watch', () => {
  it('refuses the next write once the database is gone, with a fault that says history is lost', async () => {
    const { file } = dbFile();
    const guard = new StorageGuard(file);
    guard.watch(watch(file, SQLITE_HEADER));
    const reported: string[] = [];
    guard.onFault((fault) => reported.push(`${fault.kind}: ${fault.message}`));
    expect(guard.write('journal append', () => 'written')).toBe('written');
    rmSync(file);
    let ran = false;
    expect(() =>
      guard.write('journal append', () => {
        ran = true;
      }),
    ).toThrow(`the journal database ${file} was deleted while the server ran`);
    expect(ran).toBe(false);
    await Promise.resolve();
    expect(reported).toEqual([`deleted: the journal database ${file} was deleted while the server ran`]);
    expect(guard.fault?.historyLost).toBe(true);
    expect(faultAdvice(guard.fault!)).toContain('backup');
  });
  it('check() reports the loss once, without a write', async () => {
    const { file } = dbFile();
    const guard = new StorageGuard(file);
    guard.watch(watch(file, SQLITE_HEADER));
    const reported: string[] = [];
    guard.onFault((fault) => reported.push(fault.kind));
    expect(guard.check()).toBeUndefined();
    truncateSync(file, 0);
    expect(guard.check()?.kind).toBe('replaced');
    expect(guard.check()?.kind).toBe('replaced');
    await Promise.resolve();
    expect(reported).toEqual(['replaced']);
  });
});
