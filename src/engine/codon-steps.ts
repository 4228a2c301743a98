import type { Logger } from 'pino';
import type { CheckpointType, CodonStatus, FailureReason } from '../core/protocol/index.ts';
import type { Result } from '../core/result.ts';
import type { CheckpointRecord } from '../execution/checkpoints/index.ts';
import { copyOutputs } from '../execution/outputs/index.ts';
import type { TransitionData } from '../execution/state/transitions.ts';
import type { ProviderTarget } from '../llm/providers/providers.ts';
import type { RuntimeCodon } from '../plan/index.ts';
import type { CommandWrap } from '../platform/processes/run-command.ts';
import { killPoint } from '../platform/storage/kill-point.ts';
import { describeError } from '../platform/storage/probe.ts';
import { AgentPidsFile } from './agent-pids.ts';
import { type ArchiveEntry, type ArchiveManifest, archiveFiles } from './archive.ts';
import { type Checkpointing, type Failure, toInfo } from './checkpointing.ts';
import type { Recorder } from './recorder.ts';
import type { RigDirsLog } from './rig-dirs.ts';
import { runRigSetup } from './rig-setup.ts';

/** The transition that records a checkpoint in the state. */
export type CheckpointCreated = { type: 'CheckpointCreated'; data: TransitionData<'CheckpointCreated'> };

export type CodonStepsOptions = {
  checkpoints: Checkpointing;
  archive: ArchiveManifest;
  rigDirs: RigDirsLog;
  agentRoot: string;
  executionDir: string;
  rigArchive: string;
  recorder: Recorder;
  logger: Logger;
  /** Where the pids of running codon processes are kept (rig commands, like agents). */
  agentStateDir: string;
  /** Where a successful codon's outputFiles are copied (run --output; default <execution>/output). */
  outputDir?: string;
  /** The codon's provider: its plan's key variables are kept from rig commands. */
  provider?: (codon: RuntimeCodon) => ProviderTarget;
};

/**
 * What happens around a codon's agent on disk: rig setup before it, the archive after a success,
 * and the checkpoints that make every step undoable, each recorded as transitions and events.
 */
export class CodonSteps {
  readonly #o: CodonStepsOptions;

  constructor(options: CodonStepsOptions) {
    this.#o = options;
  }

  /** Takes a checkpoint and records it; a failure is reported loudly and returned with its cause. */
  async checkpoint(
    codon: RuntimeCodon,
    runId: string,
    checkpointType: CheckpointType,
    status: CodonStatus,
  ): Promise<Result<CheckpointRecord, Failure>> {
    const taken = await this.commit(codon, runId, checkpointType, status);
    if (taken.ok) await this.#o.recorder.apply(taken.value.created.type, taken.value.created.data);
    return taken.ok ? { ok: true, value: taken.value.record } : taken;
  }

  /**
   * Takes a checkpoint in git and returns the transition that records it, for the caller to apply in
   * the same transaction as what the checkpoint stands for (a codon's end): a commit the state never
   * recorded is an orphan that recovery sets aside (recovery.ts). A failure is reported loudly.
   */
  async commit(
    codon: RuntimeCodon,
    runId: string,
    checkpointType: CheckpointType,
    status: CodonStatus,
  ): Promise<Result<{ record: CheckpointRecord; created: CheckpointCreated }, Failure>> {
    const taken = await this.#o.checkpoints.take({
      runId,
      codonId: codon.id,
      codonName: codon.name,
      checkpointType,
      status,
    });
    if (!taken.ok) {
      await this.#o.recorder.reportError(
        taken.error.code,
        `the ${checkpointType} checkpoint of codon ${codon.id} could not be written: ${taken.error.message}`,
        'codon',
        codon.id,
      );
      return taken;
    }
    const { warnings, ...record } = taken.value;
    for (const warning of warnings)
      await this.#o.recorder.reportError(
        'CHECKPOINT_WARNING',
        `checkpoint of ${codon.id}: ${warning}`,
        'warning',
        codon.id,
      );
    killPoint(`checkpoint:${checkpointType}`);
    return {
      ok: true,
      value: { record, created: { type: 'CheckpointCreated', data: { runId, checkpoint: toInfo(record) } } },
    };
  }

  /**
   * Rig setup before the agent: a codon whose rig-setup checkpoint exists in this run's history
   * reuses it (the tree is restored to it) instead of running its steps again.
   */
  async prepareRig(
    codon: RuntimeCodon,
    runId: string,
    skip: boolean,
    signal?: AbortSignal,
    wrap?: CommandWrap,
  ): Promise<FailureReason | 'aborted' | undefined> {
    if (codon.rigSetup.length === 0) return undefined;
    if (skip) {
      await this.#o.recorder.publish('info', {
        message: `rig setup of ${codon.id} skipped (skipPreCommands)`,
      });
      return undefined;
    }
    const lineage = await this.#o.checkpoints.lineage(runId);
    const existing = lineage.ok
      ? lineage.value.findLast(
          (c) => !c.initial && c.codonId === codon.id && c.checkpointType === 'rig-setup',
        )
      : undefined;
    if (existing) {
      const restored = await this.#o.checkpoints.store.restore(existing.sha);
      if (restored.ok) {
        await this.#o.recorder.publish('info', {
          message: `rig setup of ${codon.id}: reusing its rig-setup checkpoint ${existing.sha.slice(0, 12)}`,
        });
        return undefined;
      }
    }
    const pids = new AgentPidsFile(this.#o.agentStateDir, (error, file) =>
      this.#o.logger.warn({ err: error, codonId: codon.id }, `could not record a rig setup pid in ${file}`),
    );
    const result = await runRigSetup({
      steps: codon.rigSetup,
      agentRoot: this.#o.agentRoot,
      executionDir: this.#o.executionDir,
      env: codon.env,
      keyVars: this.#o.provider?.(codon).keyVars ?? [],
      ...(signal ? { signal } : {}),
      ...(wrap ? { wrap } : {}),
      onProcess: (pid, running, mark) =>
        running
          ? pids.add({ pid, codonId: codon.id, startedAt: new Date().toISOString(), kind: 'rig', mark })
          : pids.remove(pid),
      onOutput: (message) => {
        this.#o.logger.info({ codonId: codon.id, rig: message }, 'rig setup');
        void this.#o.recorder.publish('info', { message: `[${codon.id}] ${message}` }).catch(() => {});
      },
    });
    if (!result.ok) {
      if (result.aborted) {
        await this.#o.recorder.publish('info', { message: `[${codon.id}] ${result.message}` });
        return 'aborted';
      }
      return { type: 'unknown', retriable: false, message: result.message };
    }
    const taken = await this.checkpoint(codon, runId, 'rig-setup', 'preparing');
    if (!taken.ok)
      return {
        type: 'unknown',
        retriable: false,
        message: `the rig-setup checkpoint could not be written: ${taken.error.message}`,
      };
    const checkpoint = taken.value;
    if (result.createdDirs.length > 0) {
      await this.#o.rigDirs
        .add({ runId, codonId: codon.id, sha: checkpoint.sha, directories: result.createdDirs })
        .catch((error: unknown) =>
          this.#sideFileFailed(
            codon.id,
            error,
            `the directories rig setup of ${codon.id} made (${result.createdDirs.join(', ')}) could not be noted; a rollback before it will not remove them`,
          ),
        );
    }
    return undefined;
  }

  /** Notes what a successful codon archived, for rollbacks; a failure to is a warning, not the codon's. */
  async recordArchive(entry: ArchiveEntry): Promise<void> {
    await this.#o.archive
      .add(entry)
      .catch((error: unknown) =>
        this.#sideFileFailed(
          entry.codonId,
          error,
          `the files ${entry.codonId} archived could not be noted; a rollback before it will not copy them back from ${entry.archiveDir} (they stay there)`,
        ),
      );
  }

  #sideFileFailed(codonId: string, error: unknown, what: string): Promise<void> {
    const why = describeError(error, this.#o.executionDir);
    return this.#o.recorder
      .reportError('STORAGE_WARNING', `${what}: ${why}`, 'warning', codonId)
      .catch(() => {});
  }

  /**
   * outputFiles of a codon that succeeded, copied to the output directory: outputs.copied names what
   * was; a glob that matched nothing, or a file that could not be copied, is a warning.
   */
  async copyOutputs(codon: RuntimeCodon): Promise<void> {
    const { outputDir } = this.#o;
    if (codon.outputFiles.length === 0 || outputDir === undefined) return;
    const warn = (message: string) =>
      this.#o.recorder.reportError(
        'OUTPUT_WARNING',
        `[${codon.id}] outputFiles: ${message}`,
        'warning',
        codon.id,
      );
    let result: Awaited<ReturnType<typeof copyOutputs>>;
    try {
      result = await copyOutputs({ agentRoot: this.#o.agentRoot, outputDir, globs: codon.outputFiles });
    } catch (error) {
      await warn(`nothing copied to ${outputDir}: ${describeError(error, outputDir)}`);
      return;
    }
    killPoint('outputs-copied');
    for (const glob of result.unmatched) await warn(`${glob} matched no file`);
    for (const { file, reason } of result.skipped) await warn(`${file} not copied: ${reason}`);
    await this.#o.recorder.publish('outputs.copied', {
      codonId: codon.id,
      dir: outputDir,
      files: result.copied,
    });
  }

  /** archiveOnSuccess of the codon, and of its loop after the iteration's last codon. */
  async archive(codon: RuntimeCodon, runId: string): Promise<ArchiveEntry | undefined> {
    const globs = [
      ...codon.archiveOnSuccess,
      ...(codon.loop?.lastInIteration ? codon.loop.archiveOnSuccess : []),
    ];
    if (globs.length === 0) return undefined;
    const result = await archiveFiles({
      agentRoot: this.#o.agentRoot,
      rigArchive: this.#o.rigArchive,
      codonId: codon.id,
      globs,
    });
    killPoint('archive-moved');
    for (const { file, reason } of result.refused)
      await this.#o.recorder.publish('info', {
        message: `[${codon.id}] archive: ${file} not moved: ${reason}`,
      });
    if (result.failed.length > 0) {
      await this.#o.recorder.publish('archive.partial', {
        codonId: codon.id,
        archivedFiles: result.archived,
        failedFiles: result.failed,
        archiveDir: result.archiveDir,
      });
    } else {
      await this.#o.recorder.publish('archive.completed', {
        codonId: codon.id,
        archivedFiles: result.archived,
        archiveDir: result.archiveDir,
      });
    }
    if (result.archived.length === 0) return undefined;
    return {
      runId,
      codonId: codon.id,
      archiveDir: result.archiveDir,
      files: result.archived,
      at: new Date().toISOString(),
    };
  }

  async startCheckpointRun(runId: string, fromSha?: string): Promise<void> {
    const initial = await this.#o.checkpoints.startRun(runId, fromSha);
    if (initial.ok) killPoint('checkpoint:initial');
    if (initial.ok) await this.#o.recorder.apply('InitialCheckpointSet', { runId, sha: initial.value.sha });
    else
      await this.#o.recorder.reportError(
        initial.error.code,
        `run ${runId} has no initial checkpoint: ${initial.error.message}; rollback will not work until this is fixed`,
        'fatal',
      );
  }
}
