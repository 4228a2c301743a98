import { isAlive } from '../../../platform/processes/process-tree.ts';
import { type RibosomeProcess, startRibosomeProcess } from '../../background/ribosome-process.ts';

export { lastLogLine } from '../../background/log-tail.ts';

/** A job's `ribosome run`, started by this batch process. */
export type JobProcess = RibosomeProcess;

/**
 * Starts `ribosome run ARGS` in a process group of its own (a Ctrl-C at the batch's terminal is the
 * batch's to forward; a kill -9 of the batch leaves the job running to its end), its output appended
 * to `logFile`.
 */
export const startJobProcess = startRibosomeProcess;

/** Waits until a process this batch did not start (a job adopted from an earlier batch process) is gone. */
export async function waitForExit(pid: number, pollMs = 250): Promise<void> {
  while (isAlive(pid)) await new Promise((resolve) => setTimeout(resolve, pollMs));
}
