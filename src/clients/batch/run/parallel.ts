import { availableParallelism, freemem, totalmem } from 'node:os';

/**
 * What one running job holds at its peak, measured by `npm run bench -- batch` (docs/batches.md#parallel; one job's process
 * tree: its `ribosome run` server of about 150 MiB, the agent and their children; 2026-11-30): the
 * built-in agent and Codex about 305 MiB, Gemini CLI 410, Claude Code 460, opencode 655 to 730 (its
 * own process 490 to 570). Rounded up from the heaviest.
 */
export const MEMORY_PER_JOB = 768 * 1024 * 1024;

/**
 * Jobs per core. A job keeps less than half a core busy on average: 0.4 of one for a one-codon job
 * whose answers come at once (its start-up: Node loading the CLI, git, the sandbox), 0.1 to 0.3 with
 * any agent when the model takes its time, as it does for most of a real job. On the 2-core machine
 * that measured it, jobs a minute still grew from --parallel 2 to 4 (x1.27 and x1.39 in two runs, load
 * 4 to 10), so one job a core left it half idle. Heavy gates (a test suite, a build) take whole cores
 * while they run: a batch of those runs better with --parallel at the core count.
 */
export const JOBS_PER_CORE = 2;

/**
 * `--parallel`'s default: JOBS_PER_CORE a core, no more than half of the memory free now allows at
 * MEMORY_PER_JOB each (the other half for the gates' own processes and the page cache), and at least
 * one. Pure given the machine's figures.
 */
export function defaultParallel(
  machine: { cores: number; freeBytes: number; totalBytes: number } = {
    cores: availableParallelism(),
    freeBytes: freemem(),
    totalBytes: totalmem(),
  },
): number {
  const memory = Math.floor((Math.min(machine.freeBytes, machine.totalBytes) * 0.5) / MEMORY_PER_JOB);
  return Math.max(1, Math.min(machine.cores * JOBS_PER_CORE, memory));
}
