import { isAbsolute, join } from 'node:path';
import type { JobResult } from '../summary-schema.ts';

/**
 * Whether a job's terminal UI can open (pure): only while its `ribosome run` serves, at the address
 * the summary gives. Otherwise, why not, and what reads the job instead: `ribosome tui` attaches to a
 * server only, while `ribosome log` and `ribosome runs` read an execution directory, running or not.
 */
export type JobOpening = { ok: true; url: string } | { ok: false; why: string };

export function jobOpening(job: JobResult, batchDir: string): JobOpening {
  if (job.state === 'running' && job.url !== undefined) return { ok: true, url: job.url };
  const dir = isAbsolute(job.execution) ? job.execution : join(batchDir, job.execution);
  const read = `read it with: ribosome log --execution ${shellWord(dir)}`;
  switch (job.state) {
    case 'running':
      return {
        ok: false,
        why: `job ${job.id} is starting: its address is not known yet; try again in a moment`,
      };
    case 'pending':
      return { ok: false, why: `job ${job.id} has not started: its TUI opens once it runs` };
    case 'skipped':
      return {
        ok: false,
        why: `job ${job.id} was skipped${job.reason ? ` (${job.reason})` : ''}: it never ran, so it has no TUI`,
      };
    default:
      return {
        ok: false,
        why: `job ${job.id} ${job.state === 'infra-failed' ? 'failed to run' : job.state} and no longer runs, so it has no TUI; ${read}`,
      };
  }
}

/** A path as one shell word: as it is when it holds nothing a shell reads, else in single quotes. */
export function shellWord(text: string): string {
  return /^[A-Za-z0-9_./:@%+=,-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`;
}
