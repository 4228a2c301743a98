import type { EventInput, EventType } from '../core/protocol/index.ts';
import type { CheckpointError, CheckpointRecord, CheckpointStore } from '../execution/checkpoints/index.ts';
import { type ArchiveEntry, type ArchiveManifest, presentIn, reArchive, restoreArchive } from './archive.ts';
import { type RigDirsLog, removeRigDirs } from './rig-dirs.ts';

/** One rollback, fully named: where it goes, what it undoes, and the words its events carry. */
export type RollbackPlan = {
  target: CheckpointRecord;
  /** The current run's checkpoints, oldest first (its lineage). */
  lineage: readonly CheckpointRecord[];
  fromRun: string;
  fromCodon: string;
  /** The codon the rollback goes to (for a run's initial checkpoint, the codon whose start it is). */
  toCodon: string;
  /** What the client asked for (a type, `start`, `end`, `sha`, `last-success`). */
  requested: string;
};

export type RollbackDeps = {
  store: CheckpointStore;
  archive: ArchiveManifest;
  rigDirs: RigDirsLog;
  agentRoot: string;
  publish: <T extends EventType>(type: T, data: EventInput<T>) => Promise<unknown>;
};

/**
 * Checkpoints of the lineage the rollback undoes: those after the target, or, for a target in
 * another run's history, those the target's own history (`targetHistory`, oldest first) does not share.
 */
export function undonePart(
  lineage: readonly CheckpointRecord[],
  target: CheckpointRecord,
  targetHistory: readonly CheckpointRecord[] = [],
): CheckpointRecord[] {
  const at = lineage.findIndex((c) => c.sha === target.sha);
  if (at >= 0) return lineage.slice(at + 1);
  const end = targetHistory.findIndex((c) => c.sha === target.sha);
  const shared = new Set(targetHistory.slice(0, end + 1).map((c) => c.sha));
  return lineage.filter((c) => !shared.has(c.sha));
}

/** Codon ids in the order their undone checkpoints were taken, each once. */
export function undoneCodons(
  undone: readonly CheckpointRecord[],
): Array<{ codonId: string; codonName: string; last: CheckpointRecord }> {
  const byCodon = new Map<string, { codonId: string; codonName: string; last: CheckpointRecord }>();
  for (const c of undone) {
    if (c.initial) continue;
    byCodon.delete(c.codonId);
    byCodon.set(c.codonId, { codonId: c.codonId, codonName: c.codonName, last: c });
  }
  return [...byCodon.values()];
}

/**
 * A restore that did not happen: `corrupt` when the store's objects failed their check
 * (CHECKPOINT_CORRUPT: nothing was written), which callers report with that code.
 */
export type RestoreFailure = { ok: false; message: string; corrupt?: true };

export function restoreFailure(error: CheckpointError): RestoreFailure {
  return {
    ok: false,
    message: error.message,
    ...(error.code === 'CHECKPOINT_CORRUPT' ? { corrupt: true as const } : {}),
  };
}

/** The protocol code a failed restore is reported with. */
export const restoreErrorCode = (failure: { corrupt?: true }) =>
  failure.corrupt ? ('CHECKPOINT_CORRUPT' as const) : ('CHECKPOINT_FAILED' as const);

export type RestoreDeps = Pick<RollbackDeps, 'store' | 'archive' | 'agentRoot' | 'publish'>;

/**
 * Writes a checkpoint back into the agent root, archived files included: the files archived by the
 * codons `undone` undoes are copied back where the agent root has none, the restore then leaves each
 * file as the target has it, and when the target is an archiving codon's completed checkpoint (taken
 * before its archive) its files move to rigArchive/ again, said in an `info` event. A rollback and
 * an automatic retry's return to a codon's start both take this path; `beforeRestore` runs between
 * the copy-back and the restore (a rollback's rig cleanup). Returns the archives undone.
 */
export async function restoreCheckpoint(
  deps: RestoreDeps,
  target: CheckpointRecord,
  undone: readonly CheckpointRecord[],
  beforeRestore?: () => Promise<void>,
): Promise<{ ok: true; removedFiles: number; archives: ArchiveEntry[] } | RestoreFailure> {
  const undoneShas = new Set(undone.map((c) => c.sha));
  const manifest = await deps.archive.read();
  const archives = manifest.filter((e) => e.checkpointSha && undoneShas.has(e.checkpointSha));
  // The archive keeps its copies whatever happens.
  for (const entry of archives) await restoreArchive(entry, deps.agentRoot);
  await beforeRestore?.();
  const restored = await deps.store.restore(target.sha);
  if (!restored.ok) return restoreFailure(restored.error);
  for (const entry of manifest.filter((e) => e.checkpointSha === target.sha)) {
    const moved = await reArchive(entry, deps.agentRoot);
    if (moved.length > 0)
      await deps.publish('info', {
        message: `[${entry.codonId}] archive: ${moved.join(', ')} moved to ${entry.archiveDir} again`,
      });
  }
  return { ok: true, removedFiles: restored.value.removedFiles, archives };
}

/**
 * Brings the agent root back to a checkpoint, with the events of spec 3.2 in order: started,
 * progress, one codonCheckpoint per codon undone, rigCleanup, progress, archiveRestore. The tree is
 * written by restoreCheckpoint (archived files included); archiveRestore then names those the
 * agent root has. A rollback never deletes from rigArchive/ nor
 * the manifest: an undone codon's archived copies stay until its redo archives again.
 * The caller switches runs and announces rollback.completed.
 */
export async function performRollback(
  deps: RollbackDeps,
  plan: RollbackPlan,
): Promise<{ ok: true } | RestoreFailure> {
  const inLineage = plan.lineage.some((c) => c.sha === plan.target.sha);
  const targetHistory = inLineage ? undefined : await deps.store.list(plan.target.runId);
  const undone = undonePart(plan.lineage, plan.target, targetHistory?.ok ? targetHistory.value : []);
  const undoneShas = new Set(undone.map((c) => c.sha));
  const codons = undoneCodons(undone);
  const rigDirs = (await deps.rigDirs.read()).filter((e) => undoneShas.has(e.sha));
  const totalSteps = codons.length + 3;
  let step = 0;
  const progress = (message: string) =>
    deps.publish('rollback.progress', { currentStep: ++step, totalSteps, message });

  await deps.publish('rollback.started', {
    fromRun: plan.fromRun,
    fromCodon: plan.fromCodon,
    toCodon: plan.toCodon,
    toCheckpoint: plan.target.sha,
    checkpointType: plan.target.initial ? 'initial' : plan.target.checkpointType,
    codonsToProcess: codons.map((c) => c.codonId),
  });
  await progress(`rolling back ${codons.length} codon(s) to ${plan.target.sha.slice(0, 12)}`);

  for (const codon of codons) {
    await deps.publish('rollback.codonCheckpoint', {
      codonId: codon.codonId,
      codonName: codon.codonName,
      checkpoint: codon.last.sha,
      checkpointType: codon.last.checkpointType,
      message: `undoing ${codon.codonId} (its last checkpoint was ${codon.last.checkpointType} ${codon.last.sha.slice(0, 12)})`,
    });
    await progress(`undid ${codon.codonId}`);
  }

  const restored = await restoreCheckpoint(deps, plan.target, undone, async () => {
    for (const entry of rigDirs) {
      const codonName = codons.find((c) => c.codonId === entry.codonId)?.codonName ?? entry.codonId;
      await deps.publish('rollback.rigCleanup', {
        codonId: entry.codonId,
        codonName,
        directories: entry.directories,
        status: 'started',
      });
      const { successfulCleanups, failedCleanups } = await removeRigDirs(deps.agentRoot, entry.directories);
      const status =
        failedCleanups.length === 0 ? 'completed' : successfulCleanups.length === 0 ? 'failed' : 'partial';
      await deps.publish('rollback.rigCleanup', {
        codonId: entry.codonId,
        codonName,
        directories: entry.directories,
        status,
        successfulCleanups,
        ...(failedCleanups.length > 0 ? { failedCleanups } : {}),
      });
    }
    if (rigDirs.length > 0) {
      const keep = (await deps.rigDirs.read()).filter((e) => !undoneShas.has(e.sha));
      await deps.rigDirs.write(keep);
    }
    await progress('cleaned up rig setup directories');
  });

  if (!restored.ok) return restored;
  await progress(
    `agent root restored to ${plan.target.sha.slice(0, 12)} (${restored.removedFiles} files removed)`,
  );
  for (const entry of restored.archives)
    await deps.publish('rollback.archiveRestore', {
      codonId: entry.codonId,
      restoredFiles: await presentIn(entry, deps.agentRoot),
      sourceDir: entry.archiveDir,
    });
  return { ok: true };
}
