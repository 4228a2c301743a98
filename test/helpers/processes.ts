import { readdirSync, readFileSync } from 'node:fs';

/** Pids of processes whose command line holds `needle` (here: a unique sleep duration). */
export function pidsWith(needle: string): number[] {
  return readdirSync('/proc')
    .filter((p) => /^\d+$/.test(p))
    .filter((p) => {
      try {
        return readFileSync(`/proc/${p}/cmdline`, 'utf8').replaceAll('\0', ' ').includes(needle);
      } catch {
        return false;
      }
    })
    .map(Number);
}

export async function waitFor(check: () => boolean, what: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** SIGKILLs each process `left()` lists until it lists none (at most 20 looks, 50 ms apart). */
export async function killUntilNone(left: () => readonly { pid: number }[]): Promise<void> {
  for (let round = 0; round < 20; round++) {
    const found = left();
    if (found.length === 0) return;
    for (const p of found) {
      try {
        process.kill(p.pid, 'SIGKILL');
      } catch {
        // Gone meanwhile.
      }
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The first value `get` gives other than undefined, looked for every 100 ms for up to `timeoutMs`. */
export async function waitForValue<T>(what: string, get: () => T | undefined, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = get();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
