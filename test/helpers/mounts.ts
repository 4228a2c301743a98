import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Small real file systems for fault tests (root only): a tmpfs of a few MiB to fill, an ext4 image
 * on a loop device to turn read-only. Every mount made here is undone by `unmountAll`, even after a
 * failed test.
 */
const mounted: Array<{ dir: string; loop?: string }> = [];

const run = (command: string, args: string[]) =>
  execFileSync(command, args, { stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8' }).trim();

function reason(error: unknown): string {
  const e = error as { stderr?: string; message?: string };
  return (e.stderr || e.message || String(error)).trim().split('\n')[0] ?? 'unknown';
}

/** Whether this process can mount a tmpfs; the reason when it cannot (tests skip with it). */
export function tmpfsSupport(): { ok: true } | { ok: false; why: string } {
  if (process.getuid?.() !== 0) return { ok: false, why: 'not root: mounting a tmpfs needs root' };
  const probe = mkdtempSync(join(tmpdir(), 'ribosome-mount-probe-'));
  try {
    run('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', probe]);
    run('umount', [probe]);
    return { ok: true };
  } catch (error) {
    return { ok: false, why: `mount -t tmpfs failed: ${reason(error)}` };
  } finally {
    rmSync(probe, { recursive: true, force: true });
  }
}

/** Mounts a tmpfs of `size` (e.g. "5m") on `dir`, made if missing. */
export function mountTmpfs(dir: string, size: string): void {
  mkdirSync(dir, { recursive: true });
  run('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir]);
  mounted.push({ dir });
}

/**
 * An ext4 file system of `sizeMb` on a loop device (backed by `image`), mounted on `dir` with
 * errors=remount-ro, so `triggerError` turns it read-only as a failing disk would. Throws with the
 * reason when loop devices are not available.
 */
export function mountExt4(image: string, dir: string, sizeMb: number): { device: string } {
  run('truncate', ['-s', `${sizeMb}M`, image]);
  run('mkfs.ext4', ['-q', '-F', image]);
  const device = run('losetup', ['-f', '--show', image]);
  mkdirSync(dir, { recursive: true });
  try {
    run('mount', ['-o', 'errors=remount-ro', device, dir]);
  } catch (error) {
    run('losetup', ['-d', device]);
    throw error;
  }
  mounted.push({ dir, loop: device });
  return { device };
}

/** Makes ext4 report an error on `device`: with errors=remount-ro the kernel remounts it read-only. */
export function triggerExt4Error(device: string): void {
  const name = device.replace('/dev/', '');
  execFileSync('sh', ['-c', `echo 1 > /sys/fs/ext4/${name}/trigger_fs_error`]);
}

/** Unmounts and mounts again read-write (after a repair), as an operator would once the fault is fixed. */
export function remountExt4(device: string, dir: string): void {
  run('umount', [dir]);
  try {
    run('e2fsck', ['-fy', device]);
  } catch {
    // Exit codes 1 and 2 mean "errors corrected".
  }
  run('mount', ['-o', 'errors=remount-ro', device, dir]);
}

/** Whether loop devices and ext4 can be used here; the reason when not. */
export function ext4Support(): { ok: true } | { ok: false; why: string } {
  const tmpfs = tmpfsSupport();
  if (!tmpfs.ok) return tmpfs;
  const dir = mkdtempSync(join(tmpdir(), 'ribosome-ext4-probe-'));
  const before = mounted.length;
  try {
    const { device } = mountExt4(join(dir, 'image'), join(dir, 'mnt'), 8);
    const name = device.replace('/dev/', '');
    if (!readdirSync(`/sys/fs/ext4/${name}`).includes('trigger_fs_error'))
      throw new Error(`/sys/fs/ext4/${name}/trigger_fs_error is missing`);
    return { ok: true };
  } catch (error) {
    return { ok: false, why: `no ext4 on a loop device: ${reason(error)}` };
  } finally {
    unmount(mounted.splice(before));
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Undoes every mount made here, innermost first; a busy one is detached lazily. */
export function unmountAll(): void {
  unmount(mounted.splice(0));
}

function unmount(mounts: ReadonlyArray<{ dir: string; loop?: string }>): void {
  for (const m of [...mounts].reverse()) {
    // Processes just killed may hold it for a moment.
    for (let attempt = 0; attempt < 20 && !tryRun('umount', [m.dir]); attempt++) {
      if (!isMounted(m.dir)) break;
      execFileSync('sleep', ['0.1']);
    }
    if (isMounted(m.dir)) tryRun('umount', ['-l', m.dir]);
    if (m.loop) tryRun('losetup', ['-d', m.loop]);
  }
}

function tryRun(command: string, args: string[]): boolean {
  try {
    run(command, args);
    return true;
  } catch {
    return false;
  }
}

function isMounted(dir: string): boolean {
  return readFileSync('/proc/mounts', 'utf8')
    .split('\n')
    .some((line) => line.split(' ')[1] === dir);
}

/** Pids of processes whose working directory is in `dir` (what a codon left running there). */
export function processesIn(dir: string): number[] {
  return readdirSync('/proc')
    .filter((p) => /^\d+$/.test(p))
    .filter((p) => {
      try {
        const cwd = readlinkSync(`/proc/${p}/cwd`);
        return cwd === dir || cwd.startsWith(`${dir}/`);
      } catch {
        return false;
      }
    })
    .map(Number);
}

/** Pids of processes working in `dir` whose command line holds `needle` (a shell tool's command). */
export function commandsIn(dir: string, needle: string): number[] {
  return processesIn(dir).filter((pid) => {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ').includes(needle);
    } catch {
      return false;
    }
  });
}
