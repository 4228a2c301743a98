import type { CheckpointInfo } from '../../core/protocol/index.ts';
import { isEnded, orderedCodons } from './store/codons.ts';
import type { CodonRow } from './store/run-state.ts';
import type { RollbackChoice } from './store/selectors.ts';

/**
 * A codon's start and end, the Changes view's default diff: the end is its last checkpoint other
 * than rig-setup (completed, error or skipped); the start is its rig-setup checkpoint before that
 * when it has one, else the checkpoint before it (the previous codon's end, or the run's initial one).
 */
export function codonRange(
  checkpoints: readonly CheckpointInfo[],
  codonId: string,
): { from?: CheckpointInfo; to?: CheckpointInfo } {
  let from: CheckpointInfo | undefined;
  let to: CheckpointInfo | undefined;
  let rig: CheckpointInfo | undefined;
  let before: CheckpointInfo | undefined;
  for (const c of checkpoints) {
    if (c.codonId !== codonId) {
      before = c;
      rig = undefined;
    } else if (c.checkpointType === 'rig-setup') rig = c;
    else {
      to = c;
      from = rig ?? before;
      before = c;
      rig = undefined;
    }
  }
  return { ...(from ? { from } : {}), ...(to ? { to } : {}) };
}

/**
 * The codons a rollback would undo, for its confirmation: from a codon's start, that codon and
 * every later one that ran; from its end (or the last success), the later ones; from a checkpoint,
 * the codons with a checkpoint after it.
 */
export function undoneBy(
  target: RollbackChoice,
  codons: Record<string, CodonRow>,
  checkpoints: readonly CheckpointInfo[],
): string[] {
  const ran = orderedCodons(codons).filter((c) => c.attempts > 0 || c.status !== 'pending');
  const after = (index: number) => ran.slice(index).map((c) => c.codonId);
  switch (target.kind) {
    case 'codon': {
      const i = ran.findIndex((c) => c.codonId === target.codonId);
      if (i < 0) return [];
      return after(target.checkpointType === 'start' ? i : i + 1);
    }
    case 'lastSuccess': {
      let last = -1;
      ran.forEach((c, i) => {
        if (c.status === 'completed') last = i;
      });
      return after(last + 1);
    }
    case 'checkpoint': {
      const at = checkpoints.find((c) => c.sha.startsWith(target.sha));
      if (!at) return [];
      const later = new Set(checkpoints.filter((c) => c.timestamp > at.timestamp).map((c) => c.codonId));
      // A codon started after the checkpoint and still running has no checkpoint after it yet.
      return ran
        .filter((c) => later.has(c.codonId) || (!isEnded(c.status) && c.codonId !== at.codonId))
        .map((c) => c.codonId);
    }
  }
}
