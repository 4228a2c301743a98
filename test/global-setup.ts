import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { endLeftovers, processesUnder } from './helpers/leftover-processes.ts';

/**
 * Every test ends the processes it started. The run gets a temporary directory of its own (TMPDIR,
 * which the test workers and everything they start inherit): what still runs there after the tests (an
 * agent, a sandbox, a server, a gate) was left by a test. It is ended, named, and fails the run.
 * Another run's processes (another checkout's tests, CI beside a developer) live elsewhere.
 */
export default function setup(): () => Promise<void> {
  // Each project runs this; the first one's directory serves them all (nested ones would make paths
  // too long for the Unix sockets made under them).
  if (process.env.RIBOSOME_TEST_TMP) return async () => {};
  const root = mkdtempSync(join(tmpdir(), 'ribosome-vitest-'));
  process.env.TMPDIR = root;
  process.env.RIBOSOME_TEST_TMP = root;
  return async () => {
    const left = processesUnder(root);
    try {
      if (left.length === 0) return;
      const lines = await endLeftovers(left);
      // Vitest reports an error thrown here but still exits 0; the exit code is what CI reads.
      process.exitCode = 1;
      throw new Error(`${left.length} process(es) a test started outlived the tests (now ended):\n${lines}`);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  };
}
