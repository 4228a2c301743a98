import type { Logger } from 'pino';
import type { AgentAdapters } from '../agents/agent-adapter.ts';
import type { ApprovalWait, BudgetLimits, FileNode } from '../core/protocol/index.ts';
import type { EventBus } from '../execution/journal/event-bus.ts';
import type { StateStore } from '../execution/state/state-store.ts';
import type { ProviderTarget } from '../llm/providers/providers.ts';
import type { RuntimeCodon } from '../plan/index.ts';
import type { LoadedPlan } from '../plan/loaded-plan.ts';
import type { EffectiveSandbox } from '../plan/sandbox-resolve.ts';
import type { ArchiveManifest } from './archive.ts';
import type { CarriedMessage } from './carry-over.ts';
import type { Checkpointing } from './checkpointing.ts';
import type { CodonHooks } from './codon-hooks.ts';
import type { MessageQueueLimits } from './message-queue.ts';
import type { Atomically } from './recorder.ts';
import type { InterruptedRollback, LastCodonEvent } from './recovery.ts';
import type { ReviewReads } from './review/review-journal.ts';
import type { RigDirsLog } from './rig-dirs.ts';
import type { SharedLimits } from './usage-limits/limited-agents.ts';
import type { ResumedWait } from './usage-limits/pending-wait.ts';

/** What the orchestrator of one execution is built from (create-orchestrator.ts builds it). */
export type OrchestratorOptions = {
  plan: LoadedPlan;
  bus: EventBus;
  state: StateStore;
  logger: Logger;
  autostart: boolean;
  /** Where a codon's agent calls (the proxy when it is on, else the provider) and its key variable. */
  provider: (codon: RuntimeCodon) => ProviderTarget;
  adapters: AgentAdapters;
  agentRoot: string;
  /** The data directory's link in the agent root (docs/agents.md#what-stays-inside-the-agent-root). */
  dataDir?: string;
  /** Per-execution agent files (sessions, CLI home, the pids of running agents). */
  agentStateDir: string;
  /** A codon's sandbox when its agent runs confined (docs/agents.md#the-sandbox); absent or undefined: unconfined. */
  sandbox?: (codon: RuntimeCodon) => EffectiveSandbox | undefined;
  defaultModel: string;
  stopGraceMs: number;
  snapshotIntervalMs: number;
  maxResultChars: number;
  /** What may wait for the running agent, sent and not taken up (docs/steering.md). */
  messageQueue?: MessageQueueLimits;
  fileTree: () => FileNode[];
  /** Work beside each codon's agent (sentinels). */
  hooks?: CodonHooks;
  checkpoints: Checkpointing;
  archive: ArchiveManifest;
  rigDirs: RigDirsLog;
  executionDir: string;
  rigArchive: string;
  /** Where a successful codon's outputFiles are copied (absent: they are not). */
  outputDir?: string;
  /** A fresh run id (a rollback continues in a new run). */
  newRunId: () => string;
  /** One transaction over the state and the journal (the shared database). */
  atomically?: Atomically;
  /** The journal's newest codon.started / codon.completed of a run (recovery completes a codon left without its end). */
  lastCodonEvent?: LastCodonEvent;
  /** The rollback a crashed run had begun and not completed, from the journal (said in the crash warning). */
  interruptedRollback?: InterruptedRollback;
  /** The run's budget: the plan's, under the config file and the command line (docs/unattended.md#budgets). */
  budget?: BudgetLimits;
  /** What a crash left for each codon's next run, from the journal (carry-over.ts). */
  carryOver?: () => Map<string, CarriedMessage[]>;
  /** Stops the whole server (onFailure then: abort); without it an abort idles instead. */
  requestStop?: (reason: string) => void;
  /** Usage limits shared with other runs on the same credential (`ribosome run --shared-limits`). */
  sharedLimits?: SharedLimits;
  /** Review comments and reviews, from the journal (docs/review.md); absent: none. */
  reviews?: ReviewReads;
  /** A usage-limit wait the journal holds and no later event ended (docs/unattended.md#usage-limits). */
  pendingUsageWait?: () => ResumedWait | undefined;
  /** An approval wait the journal holds and no later event ended (docs/review.md#approval-gates). */
  pendingApproval?: () => ApprovalWait | undefined;
  /** `ribosome run --approve-all`: every approval wait ends at once, journaled (how `auto`). */
  approveAll?: boolean;
};
