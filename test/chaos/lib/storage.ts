/**
 * Storage faults: a small tmpfs (root only) to fill, and syscall error injection with strace (a
 * database that turns read-only under a running server: `mount -o remount,ro` is refused while
 * SQLite holds the file open for writing, so the fault is injected where SQLite meets the kernel).
 * Everything mounted or attached here is undone by the scenario's `defer`, and, should the process
 * die first, by an exit hook.
 */
import { type ChildProcess, execFileSync, spawn, spawnSync } from 'node:child_process';
import { closeSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { bounded } from './server.ts';

const mounted = new Set<string>();
process.once('exit', () => {
  for (const dir of mounted) spawnSync('umount', ['-l', dir]);
});

export const isRoot = () => process.getuid?.() === 0;

/** Why mounting cannot be done here, or undefined when it can. */
export function cannotMount(): string | undefined {
  if (!isRoot()) return 'not root: mounting a tmpfs needs root (CI runs as root)';
  if (spawnSync('mount', ['--version']).status !== 0) return 'no mount(8) on this machine';
  return undefined;
}

/** Mounts a tmpfs of `sizeMiB` at `dir`; the returned function unmounts it (also deferred). */
export function mountTmpfs(dir: string, sizeMiB: number, defer: (fn: () => unknown) => void): () => void {
  mkdirSync(dir, { recursive: true });
  execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${sizeMiB}m`, 'tmpfs', dir], { stdio: 'pipe' });
  mounted.add(dir);
  const unmount = () => {
    if (!mounted.has(dir)) return;
    const result = spawnSync('umount', [dir]);
    if (result.status !== 0) spawnSync('umount', ['-l', dir]);
    mounted.delete(dir);
  };
  defer(unmount);
  return unmount;
}

/** Writes zeros to `file` until the file system is full; returns the bytes written. */
export function fillUp(file: string): number {
  const fd = openSync(file, 'w');
  const chunk = Buffer.alloc(256 * 1024);
  let written = 0;
  try {
    for (;;) {
      try {
        written += writeSync(fd, chunk);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOSPC') break;
        throw error;
      }
    }
    // The last bytes a full chunk did not fit in.
    for (const size of [4096, 512, 1]) {
      try {
        for (;;) written += writeSync(fd, chunk.subarray(0, size));
      } catch {}
    }
  } finally {
    closeSync(fd);
  }
  return written;
}

export const hasStrace = () => spawnSync('strace', ['-V']).status === 0;

export type Injection = { stop(): Promise<void> };

/**
 * Makes every write and sync of `paths` by process `pid` (and its threads and children) fail with
 * `errno` until `stop()`: strace attaches, injects, and detaches on SIGINT. Resolves once attached.
 */
export async function injectErrors(
  pid: number,
  paths: readonly string[],
  errno: string,
  defer: (fn: () => unknown) => void,
): Promise<Injection> {
  const calls = 'write,pwrite64,writev,pwritev,pwritev2,fsync,fdatasync,ftruncate,fallocate';
  const child: ChildProcess = spawn(
    'strace',
    ['-f', '-p', String(pid), '-o', '/dev/null', `-e trace=${calls}`, `-e inject=${calls}:error=${errno}`]
      .flatMap((a) => a.split(' '))
      .concat(paths.flatMap((p) => ['-P', p])),
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let err = '';
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGINT');
    if (!(await bounded(exited, 5_000))) child.kill('SIGKILL');
  };
  defer(stop);
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`strace did not attach: ${err}`)), 10_000);
    child.stderr?.on('data', (d: Buffer) => {
      err += d.toString();
      if (/attached/.test(err)) {
        clearTimeout(timer);
        resolve();
      }
    });
    void exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`strace exited: ${err}`));
    });
  });
  return { stop };
}
