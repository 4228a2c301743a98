import { availableParallelism, freemem, totalmem } from 'node:os';

/**
 * What one running job holds at its peak, measured by `npm run bench -- batch` (docs/batches.md#parallel;
 * one job's process tree: its `ribosome run` server of about 150 MiB, the agent and their children;
 * 2026-11-30): the built-in agent and Codex about 310 MiB, Gemini CLI 400 to 410, Claude Code 455 to
 * 460, opencode 650 to 730 (its own process 490 to 570). Rounded up from the heaviest.
 */
export const MEMORY_PER_JOB = 768 * 1024 * 1024;

/**
 * Jobs per core. A job waits on its model for most of its time and keeps under half a core busy
 * (0.2 to 0.4 with each agent when each answer takes 1.5 s, mostly its start-up: Node loading the
 * CLI, git, the sandbox). On the 2-core machine that measured it, jobs that wait so finished x1.29
 * and x1.57 as many a minute at --parallel 4 as at 2; one-codon jobs answered at once (0.4 to 0.7 of
 * a core each) x0.89 and x1.05: no loss worth one job a core. Heavy gates (a test suite, a build) take
 * whole cores while they run: a batch of those is better at --parallel of the core count.
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
