import { mkdirSync, readdirSync, rmdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { acquireRuntimeLock, readLock } from '../../src/server/runtime-lock.ts';
import { waitFor } from '../helpers/processes.ts';
import { tempDir } from '../helpers/server-process.ts';

describe('runtime lock heartbeat', () => {
  const t = tempDir();
  afterAll(() => t.remove());

  it('never throws: a beat that cannot be written is reported once, retried, and leaves no temp file', async () => {
    const file = join(t.path, 'runtime.lock');
    const errors: unknown[] = [];
    const acquired = acquireRuntimeLock(file, { heartbeatMs: 10, onHeartbeatError: (e) => errors.push(e) });
    if (!acquired.ok) throw new Error('not acquired');
    // The heartbeat's temp file cannot be written while a directory stands in its place.
    const tmp = `${file}.${process.pid}.tmp`;
    mkdirSync(tmp);
    const stuck = readLock(file)?.heartbeat;
    await waitFor(() => errors.length > 0, 'a failed beat');
    acquired.lock.setAddress('127.0.0.1', 1234); // a write on demand fails quietly too
    await new Promise((r) => setTimeout(r, 50));
    expect(errors).toHaveLength(1);
    expect((errors[0] as NodeJS.ErrnoException).code).toBe('EISDIR');
    rmdirSync(tmp);
    await waitFor(() => readLock(file)?.heartbeat !== stuck, 'a beat after the fault passed');
    expect(readLock(file)).toMatchObject({ pid: process.pid, port: 1234 });
    acquired.lock.release();
    expect(readdirSync(t.path)).toEqual([]);
  });
});
