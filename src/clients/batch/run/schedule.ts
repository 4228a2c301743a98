/**
 * The batch's decisions, as a pure function of where its jobs stand (docs/batches.md#running):
 * which jobs start now, which will never start, and whether the running ones must be stopped.
 */

/** A job as the batch process sees it. */
export type Slot =
  | { kind: 'pending'; starts: number; durationMs: number; reason?: string }
  | { kind: 'running'; starts: number; durationMs: number; pid: number; startedAt: string; stopping?: string }
  | {
      kind: 'ended';
      state: 'passed' | 'failed' | 'infra-failed';
      starts: number;
      durationMs: number;
      exitCode?: number;
      reason?: string;
      startedAt?: string;
      endedAt?: string;
    }
  | { kind: 'skipped'; starts: number; durationMs: number; reason: string };

export type ScheduleInput = {
  /** In job order. */
  slots: readonly { id: string; slot: Slot }[];
  parallel: number;
  failFast: boolean;
  /** The batch's cost limit and what all jobs spent so far (finished and running). */
  budget: { maxCostUsd: number; spentUsd: number } | undefined;
  /** The batch was asked to stop (a signal, q): nothing more starts. */
  stopping: boolean;
};

export type Decision = {
  start: string[];
  skip: { id: string; reason: string }[];
  /** Stop the running jobs' codons, for this reason. */
  stopRunning?: string;
};

export function schedule(input: ScheduleInput): Decision {
  const pending = input.slots.filter((s) => s.slot.kind === 'pending');
  const running = input.slots.filter((s) => s.slot.kind === 'running');
  const halt = haltReason(input);
  if (halt !== undefined) {
    const unstopped = running.some((s) => s.slot.kind === 'running' && s.slot.stopping === undefined);
    return {
      start: [],
      skip: input.stopping ? [] : pending.map((s) => ({ id: s.id, reason: halt })),
      ...(unstopped && !input.stopping ? { stopRunning: halt } : {}),
    };
  }
  const room = Math.max(0, input.parallel - running.length);
  return { start: pending.slice(0, room).map((s) => s.id), skip: [] };
}

/** Why nothing more may start, if so. */
function haltReason(input: ScheduleInput): string | undefined {
  if (input.stopping) return 'the batch was stopped';
  if (input.budget && input.budget.spentUsd >= input.budget.maxCostUsd) {
    return `the batch budget ($${input.budget.maxCostUsd}) is spent ($${input.budget.spentUsd.toFixed(4)})`;
  }
  if (input.failFast) {
    const failed = input.slots.find(
      (s) => s.slot.kind === 'ended' && (s.slot.state === 'failed' || s.slot.state === 'infra-failed'),
    );
    if (failed) return `--fail-fast: job ${failed.id} failed`;
  }
  return undefined;
}
