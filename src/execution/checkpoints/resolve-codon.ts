import type { z } from 'zod';
import type { RollbackCheckpointType } from '../../core/protocol/commands.ts';
import type { CheckpointType } from '../../core/protocol/shared.ts';
import { fail, ok, type StoreResult } from './errors.ts';
import type { CheckpointRecord } from './schema.ts';

export type CodonCheckpointRequest = z.infer<typeof RollbackCheckpointType>;

const END_TYPES: ReadonlySet<CheckpointType> = new Set(['completed', 'error', 'skipped']);

/**
 * The checkpoint rollback.toCodon means, over a run's lineage (oldest first, as `list(runId)` gives it).
 * A codon run again (redo, codon.start) has several checkpoints of a type: the latest counts.
 *
 * - a checkpoint type: the codon's latest checkpoint of that type;
 * - `end`: the codon's latest completed, error or skipped checkpoint (how it last ended);
 * - `start`: the rig-setup checkpoint of the codon's latest attempt (its last unbroken stretch of
 *   checkpoints) if it has one, otherwise the checkpoint just before that attempt: the previous codon's
 *   last one (normally `completed`), or the run's initial checkpoint for the first codon.
 */
export function resolveCodonCheckpoint(
  lineage: readonly CheckpointRecord[],
  codonId: string,
  request: CodonCheckpointRequest,
): StoreResult<CheckpointRecord> {
  const isCodon = (c: CheckpointRecord | undefined) => c !== undefined && !c.initial && c.codonId === codonId;
  const last = lineage.findLastIndex(isCodon);
  if (last < 0)
    return fail('CHECKPOINT_NOT_FOUND', `Codon ${codonId} has no checkpoint in this run's history.`);

  if (request === 'start') {
    let first = last;
    while (isCodon(lineage[first - 1])) first -= 1;
    const attempt = lineage.slice(first, last + 1);
    const rigSetup = attempt.findLast((c) => c.checkpointType === 'rig-setup');
    if (rigSetup) return ok(rigSetup);
    const before = lineage[first - 1];
    if (before) return ok(before);
    return fail(
      'CHECKPOINT_NOT_FOUND',
      `No checkpoint precedes codon ${codonId}, so it has no start to return to.`,
    );
  }

  const wanted = (c: CheckpointRecord) =>
    isCodon(c) && (request === 'end' ? END_TYPES.has(c.checkpointType) : c.checkpointType === request);
  const found = lineage.findLast(wanted);
  if (found) return ok(found);
  const has = [...new Set(lineage.filter(isCodon).map((c) => c.checkpointType))].join(', ');
  const what =
    request === 'end'
      ? 'has not ended (no completed, error or skipped checkpoint)'
      : `has no ${request} checkpoint`;
  return fail('CHECKPOINT_NOT_FOUND', `Codon ${codonId} ${what}; it has: ${has}.`);
}
