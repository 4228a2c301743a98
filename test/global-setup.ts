import { endLeftovers, startedSince, testProcesses } from './helpers/leftover-processes.ts';

/**
 * Every test ends the processes it started. Before the run: what already runs (a developer's other
 * runs, another checkout's tests). After it: an agent, rig step, gate or sandbox started meanwhile in
 * a temporary directory and still alive was left by a test. It is ended, named, and fails the run.
 */
export default function setup(): () => Promise<void> {
  const before = testProcesses();
  return async () => {
    const left = startedSince(before, testProcesses());
    if (left.length === 0) return;
    const lines = await endLeftovers(left);
    // Vitest reports an error thrown here but still exits 0; the exit code is what CI reads.
    process.exitCode = 1;
    throw new Error(`${left.length} process(es) a test started outlived the tests (now ended):\n${lines}`);
  };
}
