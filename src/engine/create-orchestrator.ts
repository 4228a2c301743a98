import { join } from 'node:path';
import type { AgentAdapters } from '../agents/agent-adapter.ts';
import { agentAdapters } from '../agents/registry/adapters.ts';
import type { BudgetLimits, FileNode } from '../core/protocol/index.ts';
import { CheckpointStore } from '../execution/checkpoints/index.ts';
import { guardedTransaction } from '../execution/journal/database.ts';
import { DATA_LINK_EXCLUDE, linkDataDir } from '../execution/layout/data-link.ts';
import { newRunId } from '../execution/state/run-id.ts';
import { SqliteTransitionLog, StateStore } from '../execution/state/state-store.ts';
import type { ProviderTarget } from '../llm/providers/providers.ts';
import type { SpendGate } from '../llm/spend/spend-gate.ts';
import type { RuntimeCodon } from '../plan/index.ts';
import type { LoadedPlan } from '../plan/loaded-plan.ts';
import type { EffectiveSandbox } from '../plan/sandbox-resolve.ts';
import { createFileWatcher } from '../platform/files/index.ts';
import { StorageFault } from '../platform/storage/guard.ts';
import { WatchedPath } from '../platform/storage/identity.ts';
import { diagnose } from '../platform/storage/probe.ts';
import { pendingApproval } from './approval/pending-approval.ts';
import { ArchiveManifest } from './archive.ts';
import { carryOver, readCarryWindow } from './carry-over.ts';
import { Checkpointing } from './checkpointing.ts';
import type { CodonHooks } from './codon-hooks.ts';
import type { Engine } from './engine.ts';
import { createIgnoredMarker } from './file-events/ignored-marker.ts';
import { Orchestrator } from './orchestrator.ts';
import type { ActionEngine, EngineDeps, SendMessage } from './ports.ts';
import { journalReviews } from './review/review-journal.ts';
import { RigDirsLog } from './rig-dirs.ts';
import type { SentinelRecords } from './sentinel-records.ts';
import type { SharedLimits } from './usage-limits/limited-agents.ts';
import { pendingUsageWait } from './usage-limits/pending-wait.ts';

export type SentinelRecorder = SentinelRecords & {
  /** The engine's stop and rollback paths for sentinel actions. */
  engine: ActionEngine;
  /** A message action's way to the running agent. */
  sendMessage: SendMessage;
  /** The run's budgets, to check each sentinel call against (once the engine is built). */
  spendGate: () => SpendGate | undefined;
};

export type EngineSettings = {
  plan: LoadedPlan;
  autostart: boolean;
  provider: (codon: RuntimeCodon) => ProviderTarget;
  adapters?: AgentAdapters;
  /** Work beside each codon (sentinels); `record` feeds their costs and states into the run's state. */
  hooks?: (deps: EngineDeps, record: SentinelRecorder) => CodonHooks;
  /** Files over this are left out of checkpoints (and reported). */
  maxCheckpointFileBytes?: number;
  /** Paths every checkpoint takes even when ignored (a workspace's tracked ignored files). */
  checkpointInclude?: Buffer[];
  stopGraceMs?: number;
  snapshotIntervalMs?: number;
  /** Watch the agent root for file.updated / filetree.updated (on by default). */
  watchFiles?: boolean;
  /** The run's budget (docs/unattended.md#budgets); codon and loop budgets come with the plan. */
  budget?: BudgetLimits;
  /** Where a successful codon's outputFiles are copied (default <execution>/output). */
  outputDir?: string;
  /** Whose Claude Code configuration the claude-code agent runs with (default isolated). */
  claudeConfig?: 'isolated' | 'user';
  /** Whose configuration the other agent CLIs run with (plan or config file `agentConfig`). */
  agentConfig?: 'isolated' | 'user';
  /** A codon's sandbox when its agent runs confined (docs/agents.md#the-sandbox); absent: every agent unconfined. */
  sandbox?: (codon: RuntimeCodon) => EffectiveSandbox | undefined;
  /** Usage limits shared with other runs on the same credential (`ribosome run --shared-limits`). */
  sharedLimits?: SharedLimits;
  /** `ribosome run --approve-all`: approval waits end at once (docs/review.md#approval-gates). */
  approveAll?: boolean;
};

/**
 * Builds the engine of one execution: state from SQLite, the shadow git checkpoint store, the
 * file watcher, and the orchestrator that uses them. Fails (before the server listens) when the
 * checkpoint store cannot be opened, e.g. without git.
 */
export async function createOrchestrator(deps: EngineDeps, settings: EngineSettings): Promise<Engine> {
  const { layout, bus, db, logger } = deps;
  const store = await CheckpointStore.open({
    executionDir: layout.executionDir,
    workTree: layout.agentRoot,
    excludes: [DATA_LINK_EXCLUDE],
    include: settings.checkpointInclude ?? [],
    ...(settings.maxCheckpointFileBytes !== undefined
      ? { maxFileBytes: settings.maxCheckpointFileBytes }
      : {}),
    logger: logger.child({ component: 'checkpoints' }),
  });
  if (!store.ok) {
    const message = `checkpoints unavailable (${store.error.code}): ${store.error.message}`;
    // A store that cannot be made for lack of space is the storage's fault (exit 4), said as such.
    const gitDir = join(layout.internal, 'checkpoints.git');
    const full = store.error.code === 'STORE_UNAVAILABLE' && diagnose(message, gitDir);
    throw full ? new StorageFault('checkpoint store', gitDir, new Error(message)) : new Error(message);
  }

  // Deleted or replaced under the server, the store would take checkpoints nobody can find: fatal.
  deps.storage.watch(WatchedPath.open(store.value.gitDir, 'the checkpoint store'));
  const dataLink = await linkDataDir(layout.agentRoot, deps.dataDir);

  const filesLog = logger.child({ component: 'files' });
  const checkpoints = store.value;
  const marker = createIgnoredMarker({
    check: async (paths) => {
      const ignored = await checkpoints.ignoredPaths(paths);
      if (!ignored.ok) throw new Error(ignored.error.message);
      return ignored.value;
    },
    publish: (data) => bus.publish('file.updated', data),
    onCheckFailed: (err) =>
      filesLog.warn({ err }, 'could not tell which changed files checkpoints leave out: sent unmarked'),
    onPublishFailed: (err) => filesLog.warn({ err }, 'file.updated not published'),
  });
  let tree: FileNode[] = [];
  const watcher =
    settings.watchFiles === false
      ? undefined
      : createFileWatcher({
          root: layout.agentRoot,
          logger: filesLog,
          onFileUpdated: (data) => marker.push(data),
          onTreeUpdated: (next) => {
            tree = next;
            return bus.publish('filetree.updated', { tree: next }).then(() => {});
          },
        });
  await watcher?.ready;
  tree = watcher?.tree() ?? [];

  // The hooks are built before the orchestrator they report to.
  let orchestratorRef: Orchestrator | undefined;
  // Sentinels act only while a codon runs, long after the orchestrator exists.
  const started = () => {
    if (!orchestratorRef) throw new Error('the engine is not built yet');
    return orchestratorRef;
  };
  const orchestrator = new Orchestrator({
    plan: settings.plan,
    bus,
    state: new StateStore(new SqliteTransitionLog(db, deps.storage)),
    logger,
    autostart: settings.autostart,
    provider: settings.provider,
    adapters:
      settings.adapters ??
      agentAdapters({
        ...(settings.claudeConfig ? { claudeConfig: settings.claudeConfig } : {}),
        ...(settings.agentConfig ? { agentConfig: settings.agentConfig } : {}),
      }),
    agentRoot: layout.agentRoot,
    dataDir: dataLink,
    agentStateDir: layout.agentState,
    ...(settings.sandbox ? { sandbox: settings.sandbox } : {}),
    defaultModel: settings.plan.raw.model ?? 'claude-sonnet-4-5',
    stopGraceMs: settings.stopGraceMs ?? 3_000,
    snapshotIntervalMs: settings.snapshotIntervalMs ?? 5_000,
    maxResultChars: 10_000,
    messageQueue: {
      maxMessages: deps.settings.limits.messageQueueMessages,
      maxBytes: deps.settings.limits.messageQueueBytes,
    },
    fileTree: () => tree,
    checkpoints: new Checkpointing(store.value),
    archive: new ArchiveManifest(join(layout.internal, 'archive-manifest.json')),
    rigDirs: new RigDirsLog(join(layout.internal, 'rig-dirs.json')),
    executionDir: layout.executionDir,
    rigArchive: layout.rigArchive,
    outputDir: settings.outputDir ?? join(layout.executionDir, 'output'),
    newRunId,
    atomically: (write) => guardedTransaction(db, deps.storage, 'state and journal', write),
    lastCodonEvent: (runId) => {
      const row = deps.journal.lastOfRun(runId, ['codon.started', 'codon.completed']);
      const codonId = row
        ? (JSON.parse(row.json) as { data?: { codonId?: unknown } }).data?.codonId
        : undefined;
      return row && typeof codonId === 'string' ? { type: row.type, codonId } : undefined;
    },
    interruptedRollback: (runId) => {
      const row = deps.journal.lastOfRun(runId, ['rollback.started', 'rollback.completed']);
      if (row?.type !== 'rollback.started') return undefined;
      const data = (JSON.parse(row.json) as { data?: Record<string, unknown> }).data ?? {};
      const text = (key: string) => (typeof data[key] === 'string' ? data[key] : '');
      return {
        toCodon: text('toCodon'),
        checkpointType: text('checkpointType'),
        toCheckpoint: text('toCheckpoint'),
      };
    },
    carryOver: () => carryOver(readCarryWindow(deps.journal)),
    pendingUsageWait: () => pendingUsageWait(deps.journal),
    pendingApproval: () => pendingApproval(deps.journal),
    ...(settings.approveAll ? { approveAll: true } : {}),
    reviews: journalReviews(deps.journal),
    ...(settings.budget ? { budget: settings.budget } : {}),
    ...(settings.sharedLimits ? { sharedLimits: settings.sharedLimits } : {}),
    ...(deps.requestStop ? { requestStop: deps.requestStop } : {}),
    ...(settings.hooks
      ? {
          hooks: settings.hooks(deps, {
            cost: (codonId, usd) => orchestratorRef?.sentinelRecords.cost(codonId, usd),
            states: (codonId, states) => orchestratorRef?.sentinelRecords.states(codonId, states),
            engine: {
              halt: (codonId, why) => started().actions.halt(codonId, why),
              rollback: (codonId, why, failed) => started().actions.rollback(codonId, why, failed),
              redo: (codonId, why, text, failed, from) =>
                started().actions.redo(codonId, why, text, failed, from),
              comment: (codonId, comment, from, failed) =>
                started().actions.comment(codonId, comment, from, failed),
            },
            sendMessage: (text, from) => started().sendMessage(text, from),
            spendGate: () => orchestratorRef?.spendGate,
          }),
        }
      : {}),
  });
  orchestratorRef = orchestrator;
  return {
    get rollingBack() {
      return orchestrator.rollingBack;
    },
    spendGate: orchestrator.spendGate,
    start: () => orchestrator.start(),
    handle: (command, context) => orchestrator.handle(command, context),
    greet: (send) => orchestrator.greet(send),
    readyInfo: () => orchestrator.readyInfo(),
    stop: async (reason) => {
      try {
        await orchestrator.stop(reason);
      } finally {
        await watcher?.close();
        await marker.drained();
      }
    },
  };
}
