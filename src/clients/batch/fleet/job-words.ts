import type { FleetJob, FleetJobState } from './fleet-schema.ts';

/**
 * Why a job has no server to open, and what opens its record instead: the fleet view says it, and
 * so does `/ticket`'s refusal. No node: the page bundles it.
 */
export function notRunningMessage(job: FleetJob): string {
  const name = `job ${job.id}`;
  const why = job.reason === undefined ? '' : ` (${job.reason})`;
  const record = `see it with \`${recordCommand(job)}\``;
  switch (job.state) {
    case 'pending':
      return `${name} is not running: it has not started yet`;
    case 'running':
      return `${name} has no live server right now: its run is starting or has just ended; try again in a moment`;
    case 'skipped':
      return `${name} is not running: it was skipped${why}`;
    case 'unknown':
      return `${name} is not running (summary.json does not say how it went); ${record}`;
    default:
      return `${name} is not running: it ${STATE_WORD[job.state]}${why}; ${record}`;
  }
}

const STATE_WORD: Record<Exclude<FleetJobState, 'pending' | 'running' | 'skipped' | 'unknown'>, string> = {
  passed: 'passed',
  failed: 'failed',
  'infra-failed': 'failed to run',
};

/** A path as one shell word: as it is when it is plain, else single-quoted. */
export function shellWord(text: string): string {
  return /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replaceAll("'", `'\\''`)}'`;
}

/** The command that shows a job's record (its journal) once its server is gone. */
export function recordCommand(job: Pick<FleetJob, 'execution'>): string {
  return `ribosome log --execution ${shellWord(job.execution)}`;
}
