import type { JobMetrics, JobResult } from '../summary-schema.ts';

/** How every result file words a job: its codon's failure, and why it is in its state. */

/** `codon build failed (verify): gate 1 (npm test) exited with code 1`, from the job's metrics. */
export function failureText(job: JobResult): string | undefined {
  return metricsFailureText(job.metrics);
}

/** failureText of a job's metrics alone (the runner's, while its summary row is being made). */
export function metricsFailureText(metrics: JobMetrics | undefined): string | undefined {
  const failure = metrics?.failure;
  if (!failure) return undefined;
  const how = failure.reason === 'stopped' ? 'was stopped' : `failed (${failure.reason})`;
  return `codon ${failure.codonId} ${how}${failure.message ? `: ${failure.message}` : ''}`;
}

/** Why the job is where it is: the runner's words, else its codon's failure; '' when neither says. */
export function jobReason(job: JobResult): string {
  return job.reason ?? failureText(job) ?? '';
}

/** What a job's time is: its runs' wall time when it ran. */
export const jobSeconds = (job: JobResult): number => (job.durationMs ?? 0) / 1_000;
