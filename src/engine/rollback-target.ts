import { err, ok, type Result } from '../core/result.ts';
import type { CheckpointRecord } from '../execution/checkpoints/index.ts';
import type { Checkpointing, Failure } from './checkpointing.ts';
import type { EngineCommand } from './engine.ts';
import { unknownCodonMessage } from './unknown-codon.ts';

export type RollbackCommand = Extract<
  EngineCommand,
  { type: 'rollback.toCheckpoint' | 'rollback.toCodon' | 'rollback.toLastSuccess' }
>;

/** Where a rollback goes, and the codon whose start that is (codon.redo then runs it). */
export type RollbackTarget = { target: CheckpointRecord; startOf?: string };

/**
 * The checkpoint a rollback command names, over the current run's lineage (oldest first). A
 * rig-setup checkpoint, or a codon's `start`, is that codon's start; any other target is an end.
 */
export async function resolveRollbackTarget(
  command: RollbackCommand,
  lineage: readonly CheckpointRecord[],
  checkpoints: Checkpointing,
  planCodonIds: readonly string[],
  planName: string,
): Promise<Result<RollbackTarget, Failure>> {
  let found: Result<CheckpointRecord, Failure>;
  let startOf: string | undefined;
  if (command.type === 'rollback.toCheckpoint') {
    found = await checkpoints.bySha(command.data.checkpointSha);
  } else if (command.type === 'rollback.toCodon') {
    const { codonId, checkpointType } = command.data;
    if (!planCodonIds.includes(codonId) && !lineage.some((c) => c.codonId === codonId)) {
      return err({ code: 'UNKNOWN_CODON', message: unknownCodonMessage(codonId, planName, planCodonIds) });
    }
    found = checkpoints.byCodon(lineage, codonId, checkpointType);
    if (checkpointType === 'start') startOf = codonId;
  } else {
    found = checkpoints.lastSuccess(lineage);
  }
  if (!found.ok) return found;
  const target = found.value;
  if (!target.initial && target.checkpointType === 'rig-setup') startOf = target.codonId;
  return ok({ target, ...(startOf ? { startOf } : {}) });
}
