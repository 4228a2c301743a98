import { availableParallelism, freemem, totalmem } from 'node:os';

/**
 * What one running job holds, measured by `npm run bench -- batch` (docs/batches.md#parallel): a
 * `ribosome run` server with its proxy and an agent CLI (Claude Code, Codex, Gemini CLI and opencode
 * each start a Node or Bun process of 150 to 350 MB; the built-in agent far less).
 */
export const MEMORY_PER_JOB = 512 * 1024 * 1024;

/**
 * `--parallel`'s default: one job per core (a job's server, proxy and agent CLI keep about one core
 * busy while the agent works), no more than half of the memory free now allows at MEMORY_PER_JOB
 * each, and at least one. Pure given the machine's figures.
 */
export function defaultParallel(
  machine: { cores: number; freeBytes: number; totalBytes: number } = {
    cores: availableParallelism(),
    freeBytes: freemem(),
    totalBytes: totalmem(),
  },
): number {
  const memory = Math.floor((Math.min(machine.freeBytes, machine.totalBytes) * 0.5) / MEMORY_PER_JOB);
  return Math.max(1, Math.min(machine.cores, memory));
}
