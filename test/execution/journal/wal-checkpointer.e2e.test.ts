import { spawn } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../../../src/execution/journal/database.ts';
import type { JournalEntry } from '../../../src/execution/journal/journal.ts';
import { SqliteJournal } from '../../../src/execution/journal/sqlite-journal.ts';
import { WalCheckpointer } from '../../../src/execution/journal/wal-checkpointer.ts';
import { waitFor } from '../../helpers/processes.ts';
import { tempDir } from '../../helpers/server-process.ts';

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});
function dbFile(): string {
  const t = tempDir();
  cleanups.push(t.remove);
  return join(t.path, 'j.db');
}
let n = 0;
const entry = (): JournalEntry => {
  const id = `e${n++}`;
  return { id, runId: 'r', type: 'info', timestamp: new Date(0).toISOString(), json: `{"id":"${id}"}` };
};
const walBytes = (file: string) => (existsSync(`${file}-wal`) ? statSync(`${file}-wal`).size : 0);

describe('WAL checkpoints on a thread of their own', () => {
  it('copy the WAL off the writer while commits go on, and empty it once idle', async () => {
    const file = dbFile();
    const db = openDatabase(file);
    const journal = new SqliteJournal(db, undefined, {
      checkpoints: 'background',
      checkpointer: { intervalMs: 10, idleMs: 100 },
    });
    cleanups.push(() => journal.close());
    // SQLite's own auto-checkpoint is off on the writer: the commits only append to the WAL.
    expect(db.prepare('PRAGMA wal_autocheckpoint').get()).toEqual({ wal_autocheckpoint: 0 });
    for (let i = 0; i < 50; i++) {
      journal.append(Array.from({ length: 20 }, entry));
      await new Promise((r) => setImmediate(r));
    }
    await waitFor(() => (journal.checkpointStats()?.passive ?? 0) > 0, 'a passive checkpoint');
    await waitFor(() => journal.checkpointStats()?.truncates === 1, 'the idle truncate');
    expect(walBytes(file)).toBe(0);
    // Every event is in the database file itself: a reader that ignores the (now empty) WAL sees it.
    const reader = openDatabase(file);
    expect(reader.prepare('SELECT count(*) AS n FROM events').get()).toEqual({ n: 1000 });
    reader.close();
    expect(journal.count()).toBe(1000);
  });

  it('end with the journal: the writer closes last, so no WAL is left behind', () => {
    const file = dbFile();
    const journal = new SqliteJournal(openDatabase(file), undefined, { checkpoints: 'background' });
    journal.append(Array.from({ length: 100 }, entry));
    journal.close();
    expect(existsSync(`${file}-wal`)).toBe(false);
    expect(existsSync(`${file}-shm`)).toBe(false);
    const reopened = new SqliteJournal(openDatabase(file), undefined, { checkpoints: 'inline' });
    expect(reopened.count()).toBe(100);
    reopened.close();
  });

  it('say so when their thread cannot open the database, so that the writer checkpoints again', async () => {
    const errors: Error[] = [];
    let gone = false;
    const checkpointer = new WalCheckpointer(join(dbFile(), 'no-such-dir', 'j.db'), 2, undefined, {
      onError: (error) => errors.push(error),
      onGone: () => {
        gone = true;
      },
    });
    cleanups.push(() => checkpointer.stop());
    await waitFor(() => gone, 'the checkpointer to end');
    expect(errors.map((e) => e.message)).toEqual([expect.stringMatching(/WAL checkpoint failed: .*open/)]);
  });

  it('lose no acknowledged event when the process is killed (SIGKILL) mid-stream', async () => {
    const file = dbFile();
    const child = spawn(
      process.execPath,
      [join(import.meta.dirname, '../../helpers/journal-writer.ts'), file],
      {
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    cleanups.push(() => child.kill('SIGKILL'));
    const acked: string[] = [];
    let checkpoints = 0;
    const lines = createInterface({ input: child.stdout });
    lines.on('line', (line) => {
      const [what, value] = line.split(' ');
      if (what === 'acked') acked.push(value!);
      if (what === 'checkpoints') checkpoints = Number(value);
    });
    await waitFor(
      () => acked.length >= 2_000 && checkpoints >= 5,
      '2 000 acknowledged events, 5 checkpoints',
    );
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGKILL');
    await exited;
    lines.close();
    const db = openDatabase(file);
    const stored = (db.prepare('SELECT id FROM events ORDER BY seq').all() as Array<{ id: string }>).map(
      (r) => r.id,
    );
    db.close();
    // Every event a publisher was told is durable is there, in the order it was acknowledged.
    expect(stored.slice(0, acked.length)).toEqual(acked);
  });
});
