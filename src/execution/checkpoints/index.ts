/** The checkpoint store: a shadow git repository of the agent root (see store.ts). */
export { type CheckpointError, CheckpointErrorCode, type StoreResult } from './errors.ts';
export { type CheckpointLogger, type CheckpointStoreOptions, STORE_DIR_IN_EXECUTION_DIR } from './options.ts';
export type { RunBranch } from './reads.ts';
export { type CodonCheckpointRequest, resolveCodonCheckpoint } from './resolve-codon.ts';
export { describeCheckpoint, MIN_SHA_PREFIX, resolveCheckpointSha } from './resolve-sha.ts';
export { runBranchName, runIdOfBranch } from './run-branch.ts';
export {
  CheckpointMeta,
  CheckpointRecord,
  CreateCheckpointInput,
  type CreatedCheckpoint,
  type DiffStat,
  type DiffStatEntry,
  type RestoreResult,
  type SkippedFile,
} from './schema.ts';
export { CheckpointStore } from './store.ts';
