import { closeSync, openSync, readFileSync, renameSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { z } from 'zod';

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
  release(): void;
};

export type LockResult =
  | { ok: true; lock: RuntimeLock; tookOverFrom?: LockInfo }
  | { ok: false; holder: LockInfo };

const STALE_HEARTBEAT_MS = 60_000;

/**
 * `.ribosome/runtime.lock`: one server per execution directory. Created with O_EXCL so two servers
 * racing cannot both win; a lock whose process is gone is taken over. The heartbeat lets a person
 * (or a later server) tell a live holder from a pid that was reused by something else.
 */
export function acquireRuntimeLock(file: string, heartbeatMs = 5_000): LockResult {
  let tookOverFrom: LockInfo | undefined;
  for (let attempt = 0; attempt < 3; attempt++) {
    const now = new Date().toISOString();
    const info: LockInfo = { pid: process.pid, port: null, host: null, startTime: now, heartbeat: now };
    try {
      const fd = openSync(file, 'wx');
      writeSync(fd, JSON.stringify(info));
      closeSync(fd);
      return { ok: true, lock: holdLock(file, info, heartbeatMs), ...(tookOverFrom ? { tookOverFrom } : {}) };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const holder = readLock(file);
    if (holder && isHolderAlive(holder)) return { ok: false, holder };
    tookOverFrom = holder ?? undefined;
    rmSync(file, { force: true });
  }
  throw new Error(`could not acquire ${file}: it keeps reappearing; is another server starting?`);
}

function holdLock(file: string, info: LockInfo, heartbeatMs: number): RuntimeLock {
  const write = () => {
    info.heartbeat = new Date().toISOString();
    const tmp = `${file}.${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify(info));
    renameSync(tmp, file);
  };
  const timer = setInterval(() => {
    try {
      write();
    } catch {
      // Out of file descriptors for a moment: the next beat writes it (a missed beat is harmless).
    }
  }, heartbeatMs);
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
      const current = readLock(file);
      if (current?.pid === process.pid) rmSync(file, { force: true });
    },
  };
}

export function readLock(file: string): LockInfo | null {
  try {
    const parsed = LockInfo.safeParse(JSON.parse(readFileSync(file, 'utf8')));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

function isHolderAlive(holder: LockInfo): boolean {
  if (holder.pid === process.pid) return false;
  try {
    process.kill(holder.pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
  // The pid exists. If its heartbeat stopped long ago and it is not a Ribosome process, the pid was reused.
  if (Date.now() - Date.parse(holder.heartbeat) < STALE_HEARTBEAT_MS) return true;
  try {
    return readFileSync(`/proc/${holder.pid}/cmdline`, 'utf8').includes('ribosome');
  } catch {
    return true;
  }
}
