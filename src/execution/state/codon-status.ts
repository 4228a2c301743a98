import type { CodonStatus } from '../../core/protocol/index.ts';

/**
 * The codon state machine, written down once. A codon is `pending` until it starts, `preparing`
 * during rig setup, `running` while its agent works, and ends `completed`, `failed`, `skipped`
 * (codon.skip) or `stopped` (codon.forceStop). An ended codon may start again (codon.redo,
 * codon.start), which opens a new attempt at `preparing`.
 */
export const NEXT_STATUSES: Record<CodonStatus, readonly CodonStatus[]> = {
  pending: ['preparing'],
  preparing: ['running', 'failed', 'skipped', 'stopped'],
  running: ['completed', 'failed', 'skipped', 'stopped'],
  completed: ['preparing'],
  failed: ['preparing'],
  skipped: ['preparing'],
  stopped: ['preparing'],
};

export const FINAL_STATUSES: ReadonlySet<CodonStatus> = new Set([
  'completed',
  'failed',
  'skipped',
  'stopped',
]);

export function canTransition(from: CodonStatus, to: CodonStatus): boolean {
  return NEXT_STATUSES[from].includes(to);
}

export const isActive = (status: CodonStatus) => status === 'preparing' || status === 'running';
