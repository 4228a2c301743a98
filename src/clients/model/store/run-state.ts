import type { ConnectionState } from '../../../core/client/index.ts';
import type {
  CheckpointInfo,
  CodonStatus,
  CommandType,
  ErrorSeverity,
  EventData,
  FailureReason,
  ServerEvent,
} from '../../../core/protocol/index.ts';
import type { ApprovalWait } from '../approval-wait.ts';
import type { Tone } from '../tone.ts';
import type { UsageWait } from '../usage-wait.ts';
import type { BudgetView } from './budget.ts';
import type { ReviewsView } from './review-view.ts';

/** Everything the UI knows about the run, folded from protocol events. Plain data, never mutated. */

/** The server.ready fields the UI keeps. */
export type ServerReady = Pick<EventData<'server.ready'>, 'plan' | 'proxy'>;

export type CodonRow = {
  codonId: string;
  codonName: string;
  /** Index in the plan, once a CodonStarted transition has told it. */
  index?: number;
  /** The agent that runs it, once a codon.started has said (servers before issue 18 do not). */
  agent?: string;
  /** Order in which the UI first heard of the codon (sorts codons without an index). */
  seen: number;
  status: CodonStatus;
  cost: number;
  /** Part of `cost` is Ribosome's estimate (an agent that reports no cost): shown `~$…`. */
  costEstimated?: boolean;
  duration?: number;
  startTime?: string;
  attempts: number;
  /** The automatic retry the latest start is (codon.started attempt, maxAttempts, model), when the server says. */
  retry?: { attempt: number; maxAttempts: number; model?: string; firstModel?: string };
  failureReason?: FailureReason;
  /** The agent's messages (and thinking) and tool calls in this codon, over all its attempts. */
  messages?: number;
  toolCalls?: number;
  /** Why the status is what it is when the events alone do not say (undone by a rollback, server crash). */
  note?: string;
};

export type TokenTotals = { input: number; output: number; cacheCreation: number; cacheRead: number };

export type RunInfo = {
  runId?: string;
  runStatus?: 'running' | 'completed' | 'failed' | 'crashed';
  startedAt?: string;
  endedAt?: string;
  branch?: string;
  runCount: number;
  /** Cost of every run of this execution, and of the current run. */
  totalCost: number;
  runCost: number;
  /** Part of `totalCost` or of `runCost` is an estimate (state.transition, state.snapshot say). */
  totalCostEstimated?: boolean;
  runCostEstimated?: boolean;
  /** Working time of the run's codons (state.snapshot totalTime). */
  workTime?: number;
  idle?: EventData<'server.idle'> & { at: string };
  isRollingBack: boolean;
  /** Tokens of finished attempts, plus the running totals of each codon's latest attempt. */
  settledTokens: TokenTotals;
  codonTokens: Record<string, TokenTotals>;
  /** Spend against the budgets in force, from the last state.snapshot that had any. */
  budgets?: BudgetView;
  /** The usage-limit wait in progress (usage-wait.ts): which codon starts again, and when. */
  usageWait?: UsageWait;
  /** The approval wait in progress (approval-wait.ts): the codon a person must approve before the run goes on. */
  approvalWait?: ApprovalWait;
};

export type ToolResult = {
  text: string;
  isError: boolean;
  truncated: boolean;
  originalLength: number;
  ms: number;
};

export type ActivityEntry =
  | { kind: 'codon'; id: string; codonId: string; text: string; tone: Tone }
  | { kind: 'message' | 'thinking'; id: string; codonId: string; text: string }
  | {
      kind: 'tool';
      id: string;
      codonId: string;
      toolName: string;
      summary: string;
      input?: Record<string, unknown>;
      /** The call's id (assistant.action toolUseId): its result carries the same; absent in older journals. */
      toolUseId?: string;
      result?: ToolResult;
      /** No result came and none can: its codon ended, or a new attempt of it started (format.ts). */
      endedWithCodon?: true;
    }
  | {
      kind: 'file';
      id: string;
      path: string;
      action: 'created' | 'modified' | 'deleted';
      content: string;
      /** Checkpoints leave the file out (file.updated `ignored`): the views say so. */
      ignored?: true;
    }
  | {
      kind: 'note';
      id: string;
      text: string;
      tone: Tone;
      /** A sentinel's action (sentinel.action, not a dry run): a later action-failed marks it failed. */
      action?: { sentinelId: string; codonId: string; action: string; failed?: true };
    };

export type SentinelOutput = {
  id: string;
  codonId: string;
  triggerNumber: number;
  text: string;
  cost: number;
  timestamp: string;
};

export type SentinelView = {
  sentinelId: string;
  codonId: string;
  model?: string;
  strategy?: string;
  status: 'loaded' | 'unloaded';
  unloadReason?: string;
  cost: number;
  calls: number;
  outputs: SentinelOutput[];
  errors: Array<{ id: string; text: string; retriable: boolean; consecutive: number; timestamp: string }>;
};

export type ErrorView = {
  id: string;
  timestamp: string;
  severity: ErrorSeverity;
  code?: string;
  message: string;
  codon?: string;
  context?: string;
  /** The command of ours this error answers. */
  command?: string;
};

export type SentCommand = {
  id: string;
  type: CommandType;
  label: string;
  /** Sent; answered by its outcome event (command-answers.ts); failed by an error with its id. */
  status: 'sent' | 'answered' | 'failed';
  error?: string;
  /** A codon.message's text: a refusal gives it back to the prompt (selectors.ts refusedMessage). */
  text?: string;
  /** What the answer said, as a sentence (a message: where it went). */
  outcome?: string;
};

export type RollbackView = {
  phase: 'idle' | 'requested' | 'running' | 'completed' | 'failed';
  /**
   * A restarted server's recovery (its run begun with reason `recovery` while it rolled back): the
   * crashed run's codon undone, no rollback anyone asked for.
   */
  cause?: 'recovery';
  target?: string;
  commandId?: string;
  /** Codons the running rollback undoes (rollback.started, rollback.codonCheckpoint); applied on completed. */
  undoing?: readonly string[];
  totalSteps?: number;
  currentStep?: number;
  /** One line per rollback event, in order. */
  log: Array<{ id: string; text: string; tone: Tone }>;
  error?: { code?: string; message: string };
  toRun?: string;
};

export type CheckpointsView = {
  /** From the last checkpoint.list answer. */
  listed?: { runId: string; branch: string; checkpoints: CheckpointInfo[]; at: string };
  /** From CheckpointCreated transitions of the current run. */
  created: CheckpointInfo[];
};

export type Notice = { text: string; tone: Tone };

export type RunState = {
  connection: {
    state: ConnectionState;
    url: string;
    serverVersion?: string;
    /** From server.ready: the plan's codons (shown pending until they start) and the proxy. */
    plan?: ServerReady['plan'];
    proxy?: ServerReady['proxy'];
    syncing: boolean;
    lostAt?: string;
    /** How often the connection came back after being lost. */
    reconnects: number;
    /** The ids this UI's client had (one per connection): its own codon.message lines say "you". */
    clientIds?: string[];
  };
  run: RunInfo;
  codons: Record<string, CodonRow>;
  /** The newest activity entries, at most `activityLimit` of them. */
  activity: ActivityEntry[];
  /** How many older entries were dropped to keep `activity` bounded (the pane says so). */
  activityDropped: number;
  sentinels: Record<string, SentinelView>;
  sentinelOrder: string[];
  /** The newest errors, at most MAX_ERRORS. */
  errors: ErrorView[];
  /** How many older errors were dropped to keep `errors` bounded (the pane says so). */
  errorsDropped: number;
  checkpoints: CheckpointsView;
  rollback: RollbackView;
  commands: SentCommand[];
  /** Review comments per codon, with where reviews sent them (reviews.ts). */
  reviews: ReviewsView;
  notice?: Notice;
  /** Counter for `CodonRow.seen`. */
  seenCount: number;
  /** How many activity entries to keep (MAX_ACTIVITY when absent); 0 keeps none (the web dashboard keeps its own). */
  activityLimit?: number;
  /**
   * The history being folded while history.sync streams (historyBegin, historyEvents): the screen
   * keeps showing what it had until historyEnd puts this in its place.
   */
  incoming?: RunState;
};

/** What changes the store: protocol events, connection changes, and commands this UI sent. */
export type StoreAction =
  | { kind: 'events'; events: readonly ServerEvent[] }
  /** A full history replaces everything folded so far (on attach and on every reconnect). */
  | { kind: 'history'; events: readonly ServerEvent[] }
  /** The same, streamed: begin, the journal batch by batch, end (then live events held meanwhile). */
  | { kind: 'historyBegin' }
  | { kind: 'historyEvents'; events: readonly ServerEvent[] }
  /**
   * `folded`: the state the history was folded into outside the store (useEventStore folds a
   * streaming history without rendering it: historyBegin and historyEvents on a copy); its
   * `incoming` is the history that ends. Without it, this state's own `incoming`.
   */
  | { kind: 'historyEnd'; folded?: unknown }
  | {
      kind: 'connection';
      state: ConnectionState;
      at: string;
      serverVersion?: string;
      ready?: ServerReady;
      clientId?: string;
    }
  | { kind: 'syncFailed'; message: string }
  /** News of the UI's own (what its start said): shown until the run's next news. */
  | { kind: 'notice'; notice: Notice }
  | {
      kind: 'commandSent';
      id: string;
      type: CommandType;
      label: string;
      rollbackTarget?: string;
      /** A codon.message's text. */
      text?: string;
    }
  | {
      kind: 'commandNotSent';
      type: CommandType;
      label: string;
      message: string;
      /** A codon.message's text, and an id of its own: the prompt gives it back. */
      text?: string;
      id?: string;
    };

export const MAX_ACTIVITY = 1_000;
export const MAX_ERRORS = 200;
export const MAX_SENTINEL_OUTPUTS = 50;
export const MAX_COMMANDS = 20;

export const ZERO_TOKENS: TokenTotals = { input: 0, output: 0, cacheCreation: 0, cacheRead: 0 };

export function initialRunState(url: string, activityLimit?: number): RunState {
  return {
    ...(activityLimit === undefined ? {} : { activityLimit }),
    connection: { state: 'connecting', url, syncing: true, reconnects: 0 },
    run: {
      runCount: 0,
      totalCost: 0,
      runCost: 0,
      isRollingBack: false,
      settledTokens: ZERO_TOKENS,
      codonTokens: {},
    },
    codons: {},
    activity: [],
    activityDropped: 0,
    sentinels: {},
    sentinelOrder: [],
    errors: [],
    errorsDropped: 0,
    checkpoints: { created: [] },
    rollback: { phase: 'idle', log: [] },
    commands: [],
    reviews: { byCodon: {} },
    seenCount: 0,
  };
}
