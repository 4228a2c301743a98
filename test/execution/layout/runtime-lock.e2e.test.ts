import { spawn } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { acquireRuntimeLock, readLock } from '../../../src/execution/layout/runtime-lock.ts';
import { waitFor } from '../../helpers/processes.ts';
import { tempDir } from '../../helpers/server-process.ts';

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

describe('runtime lock of a killed server', () => {
  const t = tempDir();
  afterAll(() => t.remove());

  it('is taken over while the killed holder is still a zombie (not yet reaped by its parent)', async () => {
    // The forked child exits at once and its parent never waits for it: a zombie (a shell may reap
    // its background jobs itself, so not `sh -c 'true & ...'`).
    const parent = spawn(
      'perl',
      ['-e', '$| = 1; my $p = fork(); exit 0 if $p == 0; print "$p\n"; sleep 30'],
      {
        detached: true,
        stdio: ['ignore', 'pipe', 'ignore'],
      },
    );
    try {
      const zombie = await new Promise<number>((resolve) =>
        parent.stdout.once('data', (chunk: Buffer) => resolve(Number(String(chunk).trim()))),
      );
      await waitFor(() => {
        try {
          const stat = readFileSync(`/proc/${zombie}/stat`, 'utf8');
          return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) === 'Z';
        } catch {
          return false;
        }
      }, 'the child to become a zombie');
      const file = join(t.path, 'runtime.lock');
      const now = new Date().toISOString();
      writeFileSync(
        file,
        JSON.stringify({ pid: zombie, port: 7700, host: '127.0.0.1', startTime: now, heartbeat: now }),
      );
      const acquired = acquireRuntimeLock(file);
      expect(acquired.ok).toBe(true);
      if (acquired.ok) {
        expect(acquired.tookOverFrom?.pid).toBe(zombie);
        acquired.lock.release();
      }
    } finally {
      process.kill(-parent.pid!, 'SIGKILL');
    }
  });
});
