import {
  type CheckpointDiffRequest,
  CheckpointInfo,
  type CheckpointType,
  type CodonStatus,
  DIFF_LIMITS,
  type ErrorCode,
  type EventInput,
} from '../core/protocol/index.ts';
import { err, ok, type Result } from '../core/result.ts';
import type { CheckpointError, CheckpointRecord, CheckpointStore } from '../execution/checkpoints/index.ts';
import { resolveCodonCheckpoint } from '../execution/checkpoints/index.ts';
import { diagnose } from '../platform/storage/probe.ts';

/** Why the engine refuses or fails a checkpoint operation: a protocol error code and a message. */
export type Failure = { code: ErrorCode; message: string };

const codeOf = (code: string): ErrorCode =>
  code === 'CHECKPOINT_NOT_FOUND' || code === 'CHECKPOINT_AMBIGUOUS' ? code : 'CHECKPOINT_FAILED';

/** The protocol's view of a checkpoint: the store's record without its own fields. */
export const toInfo = (record: CheckpointRecord): CheckpointInfo => CheckpointInfo.parse(record);

/**
 * The engine's use of the checkpoint store: taking checkpoints for codons and runs, and resolving
 * what a rollback command names. Store errors become protocol error codes with the store's message.
 */
export class Checkpointing {
  readonly store: CheckpointStore;

  constructor(store: CheckpointStore) {
    this.store = store;
  }

  async startRun(runId: string, fromSha?: string): Promise<Result<CheckpointRecord, Failure>> {
    const created = await this.store.startRun(runId, fromSha ? { fromSha } : {});
    return created.ok
      ? ok(created.value)
      : err({ code: 'CHECKPOINT_FAILED', message: this.#explain(created.error) });
  }

  /** A failed write says its real cause first: "disk full at <store>: No space left on device (git's words)". */
  #explain(error: CheckpointError): string {
    if (error.code !== 'CHECKPOINT_FAILED' && error.code !== 'STORE_FAILED') return error.message;
    const cause = diagnose(error.message, this.store.gitDir);
    return cause ? `${cause.message} (${error.message})` : error.message;
  }

  async take(input: {
    runId: string;
    codonId: string;
    codonName: string;
    checkpointType: CheckpointType;
    status: CodonStatus;
  }): Promise<Result<CheckpointRecord & { warnings: string[] }, Failure>> {
    const created = await this.store.create(input);
    if (!created.ok) return err({ code: 'CHECKPOINT_FAILED', message: this.#explain(created.error) });
    const warnings = [
      ...created.value.skippedLargeFiles.map(
        (f) => `${f.path} (${f.bytes} bytes) is over the checkpoint size cap and was left out`,
      ),
      ...created.value.warnings,
    ];
    return ok({ ...created.value, warnings });
  }

  async lineage(runId: string): Promise<Result<CheckpointRecord[], Failure>> {
    const listed = await this.store.list(runId);
    return listed.ok ? listed : err({ code: 'CHECKPOINT_FAILED', message: listed.error.message });
  }

  /** checkpoint.diff: the changes between two checkpoints, bounded by DIFF_LIMITS. */
  async diff(request: CheckpointDiffRequest): Promise<Result<EventInput<'checkpoint.diff'>, Failure>> {
    const found = await this.store.diff(request.from, request.to, {
      ...(request.path === undefined ? {} : { path: request.path }),
      contextLines: request.contextLines,
      maxBytes: DIFF_LIMITS.maxBytes,
      maxFiles: DIFF_LIMITS.maxFiles,
      maxLines: DIFF_LIMITS.maxLines,
    });
    if (found.ok) return ok({ ...found.value, limitBytes: DIFF_LIMITS.maxBytes });
    const code = found.error.code === 'INVALID_INPUT' ? 'INVALID_COMMAND' : codeOf(found.error.code);
    const candidates = found.error.candidates?.length
      ? ` Matches: ${found.error.candidates.join(', ')}.`
      : '';
    return err({ code, message: `${found.error.message}${candidates}` });
  }

  /** rollback.toCheckpoint: a full or unique abbreviated SHA; ambiguity lists what matched. */
  async bySha(sha: string): Promise<Result<CheckpointRecord, Failure>> {
    const found = await this.store.resolve(sha);
    if (found.ok) return found;
    const candidates = found.error.candidates?.length
      ? ` Matches: ${found.error.candidates.join(', ')}.`
      : '';
    return err({ code: codeOf(found.error.code), message: `${found.error.message}${candidates}` });
  }

  /** rollback.toCodon over the current run's lineage. */
  byCodon(
    lineage: readonly CheckpointRecord[],
    codonId: string,
    type: Parameters<typeof resolveCodonCheckpoint>[2],
  ): Result<CheckpointRecord, Failure> {
    const found = resolveCodonCheckpoint(lineage, codonId, type);
    return found.ok ? found : err({ code: codeOf(found.error.code), message: found.error.message });
  }

  /** rollback.toLastSuccess: the latest `completed` checkpoint of the lineage. */
  lastSuccess(lineage: readonly CheckpointRecord[]): Result<CheckpointRecord, Failure> {
    const found = lineage.findLast((c) => !c.initial && c.checkpointType === 'completed');
    return found
      ? ok(found)
      : err({
          code: 'NO_SUCCESSFUL_CODON',
          message:
            'no codon has completed successfully in this run history, so there is no success to roll back to; use rollback.toCodon with start, or rollback.toCheckpoint',
        });
  }
}
