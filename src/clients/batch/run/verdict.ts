import type { RunRow } from '../../runs/run-rows.ts';
import type { JobState } from '../summary-schema.ts';

/** Why a job is pending after its batch was stopped (a signal, q): its codon was cut short, not failed. */
export const STOPPED_WITH_BATCH = 'stopped with the batch; it resumes when the batch runs again';

/** How a job's `ribosome run` ended: its exit code, or the signal that killed it. */
export type JobExit = { code: number | null; signal: NodeJS.Signals | null };

/**
 * What an ended run means for its job. Pure.
 * - exit 0: passed; exit 1: the plan failed (a codon failed or was stopped), never retried;
 * - exit 2: the run refused to start (a bad plan, workspace or flag): infra-failed, not retried
 *   (starting it again would be refused again);
 * - exit 3 (the execution is locked), 4 (storage failed), another code, or a signal: an
 *   infrastructure failure, retried while starts are left.
 */
export type ExitVerdict =
  | { kind: 'ended'; state: Extract<JobState, 'passed' | 'failed' | 'infra-failed'>; reason?: string }
  | { kind: 'retry'; reason: string };

export function exitVerdict(exit: JobExit, retriesLeft: number, lastLine: string | undefined): ExitVerdict {
  if (exit.code === 0) return { kind: 'ended', state: 'passed' };
  if (exit.code === 1) return { kind: 'ended', state: 'failed', ...(lastLine ? { reason: lastLine } : {}) };
  const what =
    exit.code === null
      ? `its run was killed by ${exit.signal ?? 'a signal'}`
      : exit.code === 2
        ? 'its run refused to start (exit 2)'
        : exit.code === 3
          ? 'its execution is held by another server (exit 3)'
          : exit.code === 4
            ? 'its run could not write its files (exit 4)'
            : `its run exited ${exit.code}`;
  const reason = lastLine ? `${what}: ${lastLine}` : what;
  if (exit.code === 2 || retriesLeft <= 0) return { kind: 'ended', state: 'infra-failed', reason };
  return { kind: 'retry', reason };
}

/**
 * Where a job stands from its execution alone, when the batch starts (again): a run that completed
 * passed; one that failed or was stopped failed; anything else (no run yet, one that crashed, one
 * stopped between codons, one still recorded as running) is to be run, which resumes it. Pure.
 */
export function resumedState(latest: RunRow | undefined): {
  state: 'passed' | 'failed' | 'pending';
  reason?: string;
} {
  if (!latest) return { state: 'pending' };
  if (latest.status === 'completed') return { state: 'passed' };
  if (latest.status === 'failed' || latest.status === 'stopped') {
    const which = latest.failed.length > 0 ? `: ${latest.failed.join(', ')}` : '';
    return { state: 'failed', reason: `${latest.status === 'failed' ? 'failed' : 'stopped'}${which}` };
  }
  return { state: 'pending' };
}
