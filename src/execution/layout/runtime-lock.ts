import { closeSync, openSync, readFileSync, renameSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { z } from 'zod';
import { isAlive } from '../../platform/processes/process-tree.ts';
import { StorageFault } from '../../platform/storage/guard.ts';

export const LockInfo = z.object({
  pid: z.number().int(),
  port: z.number().int().nullable(),
  host: z.string().nullable(),
  startTime: z.string(),
  heartbeat: z.string(),
});
export type LockInfo = z.infer<typeof LockInfo>;

export type RuntimeLock = {
  info: LockInfo;
  /** Records the port once the server listens. */
  setAddress(host: string, port: number): void;
  /** Stops the heartbeat and removes the lock (and a heartbeat's temp file); never throws. */
  release(): void;
};

export type LockOptions = {
  heartbeatMs?: number;
  /**
   * A heartbeat that could not be written (a full or read-only disk): called once per run of
   * failures, with the error; the heartbeat keeps trying at its interval.
   */
  onHeartbeatError?: (error: unknown) => void;
};

export type LockResult =
  | { ok: true; lock: RuntimeLock; tookOverFrom?: LockInfo }
  | { ok: false; holder: LockInfo };

const STALE_HEARTBEAT_MS = 60_000;

/**
 * `.ribosome/runtime.lock`: one server per execution directory. Created with O_EXCL so two servers
 * racing cannot both win; a lock whose process is gone is taken over. The heartbeat lets a person
 * (or a later server) tell a live holder from a pid that was reused by something else. A lock that
 * cannot be written (a full disk) is not left half made: the error is a StorageFault.
 */
export function acquireRuntimeLock(file: string, options: LockOptions = {}): LockResult {
  let tookOverFrom: LockInfo | undefined;
  for (let attempt = 0; attempt < 3; attempt++) {
    const now = new Date().toISOString();
    const info: LockInfo = { pid: process.pid, port: null, host: null, startTime: now, heartbeat: now };
    if (createLockFile(file, info)) {
      const lock = holdLock(file, info, options);
      return { ok: true, lock, ...(tookOverFrom ? { tookOverFrom } : {}) };
    }
    const holder = readLock(file);
    if (holder && isHolderAlive(holder)) return { ok: false, holder };
    tookOverFrom = holder ?? undefined;
    rmSync(file, { force: true });
  }
  throw new Error(`could not acquire ${file}: it keeps reappearing; is another server starting?`);
}

/** Creates the lock file holding `info`; false when one exists. */
function createLockFile(file: string, info: LockInfo): boolean {
  let fd: number;
  try {
    fd = openSync(file, 'wx');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw new StorageFault('runtime lock', file, error);
  }
  try {
    writeSync(fd, JSON.stringify(info));
    return true;
  } catch (error) {
    removeQuietly(file);
    throw new StorageFault('runtime lock', file, error);
  } finally {
    closeSync(fd);
  }
}

function holdLock(file: string, info: LockInfo, options: LockOptions): RuntimeLock {
  const tmp = `${file}.${process.pid}.tmp`;
  let failing = false;
  // Never throws: a heartbeat that cannot be written (disk full) is retried at the next beat.
  const write = () => {
    info.heartbeat = new Date().toISOString();
    try {
      writeFileSync(tmp, JSON.stringify(info));
      renameSync(tmp, file);
      failing = false;
    } catch (error) {
      removeQuietly(tmp);
      if (!failing) options.onHeartbeatError?.(error);
      failing = true;
    }
  };
  const timer = setInterval(write, options.heartbeatMs ?? 5_000);
  timer.unref();
  let released = false;
  return {
    info,
    setAddress(host, port) {
      info.host = host;
      info.port = port;
      write();
    },
    release() {
      if (released) return;
      released = true;
      clearInterval(timer);
      removeQuietly(tmp);
      if (readLock(file)?.pid === process.pid) removeQuietly(file);
    },
  };
}

/** On a read-only file system nothing can be removed: the next server takes the stale lock over. */
function removeQuietly(path: string): void {
  try {
    rmSync(path, { force: true });
  } catch {
    // Left for the next server (a lock whose pid is gone is taken over).
  }
}

export function readLock(file: string): LockInfo | null {
  try {
    const parsed = LockInfo.safeParse(JSON.parse(readFileSync(file, 'utf8')));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

/** Whether the process holding a lock is alive (and still a Ribosome server, when its heartbeat is old). */
export function isHolderAlive(holder: LockInfo): boolean {
  if (holder.pid === process.pid) return false;
  // A killed server is a zombie until its parent reaps it (slowly, or never, under some PID 1s): dead.
  if (!isAlive(holder.pid)) return false;
  // The pid exists. If its heartbeat stopped long ago and it is not a Ribosome process, the pid was reused.
  if (Date.now() - Date.parse(holder.heartbeat) < STALE_HEARTBEAT_MS) return true;
  try {
    return readFileSync(`/proc/${holder.pid}/cmdline`, 'utf8').includes('ribosome');
  } catch {
    return true;
  }
}
