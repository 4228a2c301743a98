import { type CheckpointError, fail, ok, type StoreResult } from './errors.ts';
import type { CheckpointRecord } from './schema.ts';

/** Shorter prefixes match too much to be typed on purpose. */
export const MIN_SHA_PREFIX = 4;
const HEX = /^[0-9a-f]+$/;

/** Finds the checkpoint a full or abbreviated SHA names, among `checkpoints`. */
export function resolveCheckpointSha(
  checkpoints: readonly CheckpointRecord[],
  shaOrPrefix: string,
): StoreResult<CheckpointRecord> {
  const prefix = shaOrPrefix.trim().toLowerCase();
  if (!HEX.test(prefix) || prefix.length < MIN_SHA_PREFIX || prefix.length > 64) {
    return fail(
      'INVALID_INPUT',
      `${JSON.stringify(shaOrPrefix)} is not a checkpoint SHA: give at least ${MIN_SHA_PREFIX} hex digits.`,
    );
  }
  const matches = new Map<string, CheckpointRecord>();
  for (const checkpoint of checkpoints) {
    if (checkpoint.sha.startsWith(prefix)) matches.set(checkpoint.sha, checkpoint);
  }
  const [first, ...others] = matches.values();
  if (!first) {
    return fail(
      'CHECKPOINT_NOT_FOUND',
      `No checkpoint has a SHA starting with ${prefix}; list them with checkpoint.list.`,
    );
  }
  if (others.length === 0) return ok(first);
  const shown = Math.max(12, prefix.length + 4);
  const lines = [first, ...others].map((c) => `${c.sha.slice(0, shown)} ${describeCheckpoint(c)}`);
  const error: CheckpointError = {
    code: 'CHECKPOINT_AMBIGUOUS',
    message: `SHA prefix ${prefix} matches ${matches.size} checkpoints; give more digits:\n  ${lines.join('\n  ')}`,
    candidates: [...matches.keys()],
  };
  return { ok: false, error };
}

/** "completed of codon Write tests (c2), run r1" - how a person tells checkpoints apart. */
export function describeCheckpoint(checkpoint: CheckpointRecord): string {
  if (checkpoint.initial) return `initial checkpoint of run ${checkpoint.runId}`;
  const name = checkpoint.codonName ? `${checkpoint.codonName} (${checkpoint.codonId})` : checkpoint.codonId;
  return `${checkpoint.checkpointType} of codon ${name}, run ${checkpoint.runId}`;
}
