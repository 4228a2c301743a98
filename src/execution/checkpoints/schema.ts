import { z } from 'zod';
import { CheckpointInfo, CheckpointType, CodonStatus } from '../../core/protocol/shared.ts';

/** What a checkpoint commit records about itself (its message carries it, see message.ts). */
export const CheckpointMeta = z.object({
  runId: z.string().min(1),
  codonId: z.string(),
  codonName: z.string(),
  checkpointType: CheckpointType,
  status: CodonStatus,
  timestamp: z.iso.datetime(),
  /** The checkpoint taken when a run starts (InitialCheckpointSet), before any codon. */
  initial: z.boolean(),
});
export type CheckpointMeta = z.infer<typeof CheckpointMeta>;

/** The protocol's CheckpointInfo plus what the store knows: its run, whether it is initial, its parent. */
export const CheckpointRecord = CheckpointInfo.extend({
  runId: z.string(),
  initial: z.boolean(),
  parentSha: z.string().nullable(),
});
export type CheckpointRecord = z.infer<typeof CheckpointRecord>;

export const CreateCheckpointInput = z.object({
  runId: z.string().min(1),
  codonId: z.string().min(1),
  codonName: z.string(),
  checkpointType: CheckpointType,
  status: CodonStatus,
});
export type CreateCheckpointInput = z.infer<typeof CreateCheckpointInput>;

/** A file left out of a checkpoint (or left in place by a restore) because it is over the size cap. */
export type SkippedFile = { path: string; bytes: number };

export type CreatedCheckpoint = CheckpointRecord & {
  /** Files over `maxFileBytes`: not in this checkpoint; the engine should warn about them. */
  skippedLargeFiles: SkippedFile[];
  /** Paths git reported and passed over (e.g. an unreadable directory), to be shown as warnings. */
  warnings: string[];
};

export type RestoreResult = {
  checkpoint: CheckpointRecord;
  /** Files deleted because the checkpoint does not have them. */
  removedFiles: number;
  /** Untracked files over the size cap, left where they are. */
  keptLargeFiles: SkippedFile[];
};

export type DiffStatEntry = { path: string; added: number | null; deleted: number | null };
export type DiffStat = { files: DiffStatEntry[]; added: number; deleted: number };
