import type { CheckpointRecord } from '../checkpoints/index.ts';

/** What an export hands back: the lineage's first checkpoint and its completed codons, in order. */
export type ExportLineage = { base: CheckpointRecord; codons: CheckpointRecord[]; runId: string };

/**
 * From the first-parent history of the latest run's branch (oldest first): its first checkpoint
 * (the initial one of the first run it grew from) and every completed codon checkpoint after it.
 * A rolled-back codon is not on this history, so it is not exported; a failed or skipped codon's
 * changes, if any stayed, come with the next completed codon.
 */
export function selectLineage(
  history: readonly CheckpointRecord[],
): { ok: true; value: ExportLineage } | { ok: false; message: string } {
  const base = history[0];
  if (!base) return { ok: false, message: 'no checkpoint yet: nothing has run in this execution' };
  const codons = history
    .slice(1)
    .filter((c) => !c.initial && c.checkpointType === 'completed' && c.status === 'completed');
  if (codons.length === 0) {
    return { ok: false, message: 'no codon has completed in the latest run yet: nothing to export' };
  }
  return { ok: true, value: { base, codons, runId: history[history.length - 1]?.runId ?? base.runId } };
}
