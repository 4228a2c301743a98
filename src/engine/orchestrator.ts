import { mkdirSync } from 'node:fs';
import type { Logger } from 'pino';
import type { AgentAdapters } from '../agents/agent-adapter.ts';
import {
  type BudgetLimits,
  type ErrorCode,
  type EventInput,
  type EventType,
  echo,
  type FileNode,
  type MessageDelivery,
  type MessageSender,
  MessageText,
  REASON_MAX_CHARS,
  type StateTransitionType,
} from '../core/protocol/index.ts';
import { type CheckpointRecord, runBranchName } from '../execution/checkpoints/index.ts';
import type { EventBus } from '../execution/journal/event-bus.ts';
import { isActive } from '../execution/state/codon-status.ts';
import { codonOf, runOf } from '../execution/state/reducer.ts';
import type { StateStore } from '../execution/state/state-store.ts';
import type { TransitionData } from '../execution/state/transitions.ts';
import type { ProviderTarget } from '../llm/providers/providers.ts';
import type { RuntimeCodon } from '../plan/index.ts';
import type { LoadedPlan } from '../plan/loaded-plan.ts';
import type { ArchiveManifest } from './archive.ts';
import { BudgetKeeper } from './budgets/budget-keeper.ts';
import { type CarriedMessage, describeCarried } from './carry-over.ts';
import { listCheckpoints } from './checkpoint-list.ts';
import type { Checkpointing } from './checkpointing.ts';
import { type CodonHooks, noHooks } from './codon-hooks.ts';
import { CodonLifecycle } from './codon-lifecycle.ts';
import { CodonSteps } from './codon-steps.ts';
import type { CommandContext, Engine, EngineCommand, ReadyInfo, SendToClient } from './engine.ts';
import { endLeftoverAgents } from './leftover-agents.ts';
import type { MessageQueueLimits } from './message-queue.ts';
import { type CodonOutcome, clientStopReason } from './outcome/failure.ts';
import type { ActionResult } from './ports.ts';
import { type Atomically, Recorder } from './recorder.ts';
import {
  completeUnended,
  describeInterruptedRollback,
  type InterruptedRollback,
  type LastCodonEvent,
  markCrashed,
  recordedShas,
  recoveryPoint,
  setAsideOrphans,
} from './recovery.ts';
import { firstAttempt, type NextAttempt, showsAttempts } from './retries/retry-policy.ts';
import { Retrying } from './retrying.ts';
import type { RigDirsLog } from './rig-dirs.ts';
import type { RestoreDeps } from './rollback.ts';
import { type RollbackCommand, type RollbackTarget, resolveRollbackTarget } from './rollback-target.ts';
import { switchRun } from './run-switch.ts';
import { buildSnapshot } from './snapshot.ts';
import { unknownCodonMessage } from './unknown-codon.ts';
import { unreportedSpend } from './unreported-spend.ts';
import {
  decide,
  type IdleReason,
  idleEvent,
  lineageOf,
  nextCodon,
  progress,
  recoveryCodon,
  redoCodon,
  type Trigger,
} from './what-next.ts';

/**
 * What Orchestrator.sendMessage did: the agent has the text (and how it reaches it), or why no agent
 * took it. Sentinels see it as ports.ts's MessageOutcome.
 */
export type DeliveryOutcome =
  | { ok: true; codonId: string; delivery: Exclude<MessageDelivery, 'prompt'> }
  | { ok: false; code: 'NO_CODON_RUNNING' | 'INVALID_COMMAND' | 'MESSAGE_QUEUE_FULL'; message: string };

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
  /** The data directory's link in the agent root (README "The data directory"). */
  dataDir?: string;
  /** Per-execution agent files (sessions, CLI home, the pids of running agents). */
  agentStateDir: string;
  defaultModel: string;
  stopGraceMs: number;
  snapshotIntervalMs: number;
  maxResultChars: number;
  /** What may wait for the running agent, sent and not taken up (README "Steering a running agent"). */
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
  /** The run's budget: the plan's, under the config file and the command line (README "Budgets"). */
  budget?: BudgetLimits;
  /** What a crash left for each codon's next run, from the journal (carry-over.ts). */
  carryOver?: () => Map<string, CarriedMessage[]>;
  /** Stops the whole server (onFailure then: abort); without it an abort idles instead. */
  requestStop?: (reason: string) => void;
};

type Moved = { ok: true } | { ok: false; code: ErrorCode; message: string };

/** What follows a codon a sentinel stopped to roll back (README "Sentinel actions"). */
type FollowUp = {
  codonId: string;
  run(): Promise<void>;
  /** It cannot run (the codon's end failed to be recorded): the rollback is given up, said so. */
  drop(why: string): void;
};

/**
 * The engine: one serialized queue takes the server's start, every command and every codon's end,
 * one at a time. What runs next is always asked of the rules (what-next.ts) over the recorded
 * state, in one place (`#proceed`), so no order of commands, rollbacks, crashes and restarts can
 * start two codons at once. A codon's own course is CodonLifecycle's.
 */
export class Orchestrator implements Engine {
  readonly #o: OrchestratorOptions;
  readonly #log: Logger;
  readonly #recorder: Recorder;
  readonly #steps: CodonSteps;
  readonly #lifecycle: CodonLifecycle;
  readonly #budgets: BudgetKeeper;
  #queue: Promise<void> = Promise.resolve();
  #stopping = false;
  #rollingBack = false;
  /** Rollback commands taken and not yet done: the server refuses state changes meanwhile. */
  #rollbacksQueued = 0;
  /** Resolves once the running codon's end has been recorded. */
  #finished: Promise<void> = Promise.resolve();
  #resumed: ReadyInfo['resumed'];
  /** The automatic retry waiting for its time, if any (README "Automatic retries and the fallback model"). */
  readonly #retries: Retrying;
  /**
   * A sentinel's rollback or redo, taken when it stopped the codon: it runs in the codon's end's own
   * task, in place of the usual decision (no idle in between, no command slipping in).
   */
  #followUp: FollowUp | undefined;
  /** Texts a crash kept from an agent (or a redo it interrupted), by codon: its next start's prompt takes them. */
  #carried = new Map<string, CarriedMessage[]>();

  constructor(options: OrchestratorOptions) {
    this.#o = options;
    mkdirSync(options.agentStateDir, { recursive: true });
    this.#log = options.logger.child({ component: 'engine' });
    this.#recorder = new Recorder({
      bus: options.bus,
      state: options.state,
      logger: this.#log,
      ...(options.atomically ? { atomically: options.atomically } : {}),
    });
    this.#steps = new CodonSteps({ ...options, recorder: this.#recorder, logger: this.#log });
    this.#lifecycle = new CodonLifecycle({
      ...options,
      state: () => options.state.state,
      recorder: this.#recorder,
      steps: this.#steps,
      hooks: options.hooks ?? noHooks,
      logger: this.#log,
      snapshot: () => this.#snapshot(),
    });
    this.#budgets = new BudgetKeeper({
      planName: options.plan.name,
      limits: options.budget,
      codons: options.plan.codons,
      recorder: this.#recorder,
      logger: this.#log,
      stopActive: (message) => this.#lifecycle.stopActive('budget', message),
      snapshot: () => this.#snapshot(),
    });
    const { requestStop } = options;
    this.#retries = new Retrying({
      autostart: options.autostart,
      checkpoints: options.checkpoints,
      restore: this.#restoreDeps(),
      recorder: this.#recorder,
      state: () => this.#state,
      stopping: () => this.#stopping,
      active: () => this.#lifecycle.active !== undefined,
      refusal: (codonId) => this.#budgets.refusal(codonId),
      enqueue: (task, context) => this.#enqueue(task, context),
      proceed: (trigger) => this.#proceed(trigger),
      idle: (reason, refused) => this.#idle(reason, refused),
      startCodon: (codon, skipPreCommands, attempt) => this.#startCodon(codon, skipPreCommands, attempt),
      ...(requestStop
        ? {
            abort: (reason: string) => {
              this.#stopping = true;
              requestStop(reason);
            },
          }
        : {}),
    });
  }

  get rollingBack(): boolean {
    return this.#rollingBack || this.#rollbacksQueued > 0;
  }

  get #codons(): readonly RuntimeCodon[] {
    return this.#o.plan.codons;
  }

  get #state() {
    return this.#o.state.state;
  }

  #runId(): string {
    const id = this.#state.currentRunId;
    if (!id) throw new Error('no current run');
    return id;
  }

  /** Recovers what a previous server left, begins this server's run, then idles or autostarts. */
  start(): Promise<void> {
    // In the queue, so a command sent while recovery runs waits for it.
    const started = this.#queue.then(() => this.#startup());
    this.#queue = started.catch(() => {});
    return started;
  }

  readyInfo(): ReadyInfo {
    return this.#resumed ? { resumed: this.#resumed } : {};
  }

  greet(send: SendToClient): void {
    // A crash left a codon unfinished and this server has not run one since: tell each new client.
    const run = this.#state.currentRunId ? runOf(this.#state, this.#state.currentRunId) : undefined;
    if (run?.reason !== 'recovery' || !this.#crashedBefore(run.runId)) return;
    const codonId = lineageOf(this.#state).atStartOf;
    const codon = codonId === undefined ? undefined : this.#codons.find((c) => c.id === codonId);
    if (!codon) return;
    send('incomplete.codon', {
      codonId: codon.id,
      codonName: codon.name,
      message: 'this codon was interrupted when the server stopped; codon.redo (or codon.next) runs it again',
    });
  }

  /** The run before `runId` in the journal when it crashed. */
  #crashedBefore(runId: string) {
    const at = this.#state.runOrder.indexOf(runId);
    const before = at > 0 ? runOf(this.#state, this.#state.runOrder[at - 1] ?? '') : undefined;
    return before?.status === 'crashed' ? before : undefined;
  }

  /** A sentinel's LLM cost: part of the codon's and the run's totals. */
  recordSentinelCost(codonId: string, usd: number): void {
    const runId = this.#state.currentRunId;
    if (!runId || usd <= 0 || !codonOf(runOf(this.#state, runId), codonId)) return;
    this.#recorder
      .apply('CostsIncremented', { runId, codonId, amount: usd, source: 'sentinel' })
      .catch((error: unknown) => this.#log.error({ err: error }, 'recording a sentinel cost failed'));
  }

  /** Sentinel load and unload, recorded as SentinelStatesUpdated. */
  recordSentinelStates(
    codonId: string,
    sentinels: TransitionData<'SentinelStatesUpdated'>['sentinels'],
  ): void {
    const runId = this.#state.currentRunId;
    if (!runId || !codonOf(runOf(this.#state, runId), codonId)) return;
    this.#recorder
      .apply('SentinelStatesUpdated', { runId, codonId, sentinels })
      .catch((error: unknown) => this.#log.error({ err: error }, 'recording sentinel states failed'));
  }

  handle(command: EngineCommand, given: CommandContext): void {
    // Straight to the running agent: never behind the queue, and no takeover of a waiting retry.
    if (command.type === 'codon.message') {
      const sent = this.sendMessage(command.data.text, { kind: 'client', clientId: given.clientId });
      if (!sent.ok) given.fail(sent.code, sent.message);
      return;
    }
    // A client acting while a retry waits takes over: the retry is cancelled, and said so.
    let context = given;
    if (command.type !== 'checkpoint.list' && command.type !== 'checkpoint.diff') {
      const taken = this.#retries.takeOver(command, given);
      if (taken === 'handled') return;
      context = taken;
    }
    // A read of the state: answered at once, even while a rollback holds the queue.
    if (command.type === 'checkpoint.list') {
      const state = this.#state;
      const runId = command.data.runId ?? state.currentRunId ?? '';
      if (!runOf(state, runId)) {
        context.fail(
          'UNKNOWN_RUN',
          `no run "${echo(runId)}"; runs: ${state.runOrder.join(', ') || '(none)'}`,
        );
        return;
      }
      const branch = runBranchName(state.currentRunId ?? '');
      context.reply('checkpoint.list', {
        runId,
        checkpoints: listCheckpoints(state, runId, runId === state.currentRunId),
        currentBranch: branch.ok ? branch.value : '',
      });
      return;
    }
    // A read of the shadow repository: it waits only for the store's own queue, never for a codon.
    if (command.type === 'checkpoint.diff') {
      this.#o.checkpoints
        .diff(command.data)
        .then((found) =>
          found.ok ? context.reply('checkpoint.diff', found.value) : context.fail(found.code, found.message),
        )
        .catch((error: unknown) =>
          context.fail('INTERNAL_ERROR', `checkpoint.diff failed: ${(error as Error).message}`),
        );
      return;
    }
    if (command.type === 'codon.skip' || command.type === 'codon.forceStop') {
      // A stop is meant for the codon active when it arrives, never for one started after it.
      const target = this.#lifecycle.active?.id;
      // Rig setup runs inside the queue: a stop for it must not wait behind it.
      if (this.#lifecycle.preparing) {
        this.#stopCommand(command, context, target).catch((error: unknown) =>
          context.fail('INTERNAL_ERROR', `the command failed: ${(error as Error).message}`),
        );
      } else this.#enqueue(() => this.#stopCommand(command, context, target), context);
      return;
    }
    if (command.type.startsWith('rollback.')) {
      // From now on the rollback is under way: commands that arrive after it are refused, not queued behind it.
      this.#rollbacksQueued += 1;
      this.#enqueue(async () => {
        // Its turn: `#rollingBack` covers it until rollback.completed (or its refusal) is out.
        this.#rollbacksQueued -= 1;
        this.#rollingBack = true;
        try {
          await this.#handle(command, context);
        } finally {
          this.#rollingBack = false;
        }
      }, context);
      return;
    }
    this.#enqueue(() => this.#handle(command, context), context);
  }

  /**
   * Hands `text` to the running codon's agent and journals it (`codon.message`, after the agent has
   * it); NO_CODON_RUNNING, with why, when no agent takes it. Clients (codon.message) and sentinel
   * actions send through here.
   */
  sendMessage(text: string, from: MessageSender): DeliveryOutcome {
    // Every sender's text, checked here once more: a client's was checked with its command, a
    // sentinel's (a rendered template) was not; this is the one place both pass.
    const checked = MessageText.safeParse(text);
    if (!checked.success) {
      const why = checked.error.issues[0]?.message ?? 'not a message';
      return { ok: false, code: 'INVALID_COMMAND', message: `the message is not sent: ${why}` };
    }
    const sent = this.#lifecycle.sendMessage(text);
    if (!sent.ok && sent.code) return { ok: false, code: sent.code, message: sent.message };
    if (!sent.ok) {
      const waiting = this.#retries.pending ? '; an automatic retry is waiting to start' : '';
      return { ok: false, code: 'NO_CODON_RUNNING', message: `${sent.message}${waiting}` };
    }
    const { codonId, delivery } = sent;
    this.#log.info({ codonId, from, delivery, chars: text.length }, 'message handed to the agent');
    this.#publish('codon.message', { codonId, text, from, delivery }).catch((error: unknown) =>
      this.#log.error({ err: error }, 'journaling a codon.message failed'),
    );
    return { ok: true, codonId, delivery };
  }

  async stop(reason: string): Promise<void> {
    this.#stopping = true;
    this.#budgets.close();
    const cancelled = this.#retries.cancel();
    // A codon in rig setup holds the queue: stop its command first.
    if (this.#lifecycle.preparing)
      await this.#lifecycle.stopActive('forceStop', `by the server's shutdown (${reason})`);
    await this.#queue;
    // Sentinels first: the codon's end then does not wait for their pending calls.
    await this.#o.hooks?.shutdown();
    if (cancelled && !this.#recorder.halted)
      await this.#publish('info', {
        message: `the retry of codon ${cancelled.codon.id} (attempt ${cancelled.next.attempt} of ${cancelled.next.maxAttempts}) is cancelled by the server's shutdown (${reason})`,
      });
    const active = this.#lifecycle.active;
    if (active) {
      this.#log.info({ codonId: active.id, reason }, 'stopping the running codon for shutdown');
      await this.#lifecycle.stopActive('forceStop', `by the server's shutdown (${reason})`);
      await this.#finished;
    }
    const run = this.#state.currentRunId ? runOf(this.#state, this.#runId()) : undefined;
    // After a storage failure nothing more is written: the next server marks the run crashed.
    if (run?.status === 'running' && !this.#recorder.halted) {
      const last = lineageOf(this.#state).endings.at(-1);
      const endedAt = new Date().toISOString();
      const broke = run.order.length > 0 && last && last.status !== 'completed' && last.status !== 'skipped';
      if (broke && last) {
        await this.#apply('RunFailed', {
          runId: run.runId,
          endedAt,
          reason: `codon ${last.codonId} ${last.status}; ${reason}`,
        });
      } else {
        await this.#apply('RunCompleted', { runId: run.runId, endedAt });
      }
    }
    this.#recorder.close();
  }

  // --- the queue and the one decision ---------------------------------------------------------------

  #enqueue(task: () => Promise<void>, context?: CommandContext): void {
    this.#queue = this.#queue.then(task).catch((error: unknown) => {
      this.#log.error({ err: error }, 'engine task failed');
      const message = `the command failed: ${(error as Error).message}`;
      if (context) context.fail('INTERNAL_ERROR', message);
      else void this.#recorder.reportError('INTERNAL_ERROR', message, 'operation').catch(() => {});
    });
  }

  /** After a start, a codon's end or a rollback: start what the rules say, or idle. */
  async #proceed(trigger: Trigger): Promise<void> {
    // A client may have started a codon before startup's turn came: the decision is then taken.
    if (this.#stopping || this.#lifecycle.active || this.#retries.pending) return;
    const decision = decide(trigger, this.#codons, lineageOf(this.#state));
    if (!('start' in decision)) return void (await this.#idle(decision.idle));
    // An exhausted budget holds the run: only a person (with a higher limit) moves it on.
    const refused = this.#budgets.refusal(decision.start.id);
    if (!refused) return this.#startCodon(decision.start, false);
    await this.#idle(trigger.kind === 'startup' ? 'startup' : 'codon-completed', refused);
  }

  /**
   * Starts a codon, unless one is active: that would be two at once, which never happens.
   * `attempt`: set for an automatic attempt, which counts in the codon's own budget; a start by a
   * person or by the rules begins that budget afresh. `said`: texts added to its prompt after a
   * blank line each (a redo's), after those a crash carried over to it; each is journaled as
   * codon.message `prompt` before codon.started.
   */
  async #startCodon(
    planned: RuntimeCodon,
    skipPreCommands: boolean,
    attempt?: NextAttempt,
    said: readonly CarriedMessage[] = [],
  ): Promise<void> {
    const runId = this.#runId();
    const run = runOf(this.#state, runId);
    const busy =
      this.#lifecycle.active?.id ?? Object.values(run?.codons ?? {}).find((c) => isActive(c.status))?.codonId;
    if (busy) {
      await this.#recorder.reportError(
        'CODON_RUNNING',
        `not starting ${planned.id}: codon ${busy} is still active (only one codon runs at a time)`,
        'warning',
      );
      return;
    }
    const texts = [...(this.#carried.get(planned.id) ?? []), ...said];
    this.#carried.delete(planned.id);
    for (const { text, from } of texts)
      await this.#publish('codon.message', { codonId: planned.id, text, from, delivery: 'prompt' });
    const codon =
      texts.length === 0
        ? planned
        : { ...planned, prompt: [planned.prompt, ...texts.map((t) => t.text)].join('\n\n') };
    let recorded: () => void = () => {};
    this.#finished = new Promise((resolve) => {
      recorded = resolve;
    });
    this.#budgets.begin(codon.id, attempt === undefined);
    const next = attempt ?? firstAttempt(codon, this.#o.defaultModel);
    const onExit = (outcome: CodonOutcome) => {
      this.#budgets.end(codon.id);
      this.#enqueue(async () => {
        try {
          const status = await this.#lifecycle.finish(codon, runId, outcome);
          const followUp = this.#takeFollowUp(codon.id);
          if (followUp) await followUp.run();
          else await this.#retries.afterCodon(codon, runId, status, next, outcome);
        } finally {
          this.#takeFollowUp(codon.id)?.drop("the codon's end could not be recorded");
          recorded();
        }
      });
    };
    const shown = showsAttempts(codon, next)
      ? { attempt: next.attempt, maxAttempts: next.maxAttempts, model: next.model }
      : undefined;
    const began = await this.#lifecycle.begin(codon, runId, skipPreCommands, onExit, shown);
    if (began === 'running') return;
    this.#budgets.end(codon.id);
    recorded();
    await this.#retries.afterCodon(codon, runId, began, next, undefined);
  }

  // --- after an attempt: retry, then (README "Automatic retries and the fallback model") --------------

  /** After a codon's end: a retry due, or `then` after its last attempt, or the usual decision. */
  // --- commands ------------------------------------------------------------------------------------

  async #handle(command: EngineCommand, ctx: CommandContext): Promise<void> {
    if (this.#stopping) return ctx.fail('SHUTTING_DOWN', 'the server is shutting down; no new work is taken');
    switch (command.type) {
      case 'codon.start': {
        const codon = this.#codons.find((c) => c.id === command.data.codonId);
        if (!codon) {
          const ids = this.#codons.map((c) => c.id);
          return ctx.fail('UNKNOWN_CODON', unknownCodonMessage(command.data.codonId, this.#o.plan.name, ids));
        }
        if (this.#busy(ctx) || this.#overBudget(codon, ctx)) return;
        return this.#startCodon(codon, command.data.skipPreCommands);
      }
      case 'codon.next': {
        if (this.#busy(ctx)) return;
        const next = nextCodon(this.#codons, lineageOf(this.#state));
        if (!next) {
          return ctx.fail(
            'NO_NEXT_CODON',
            `all ${this.#codons.length} codons are done; use codon.redo, or codon.start with a codon id, to run one again`,
          );
        }
        if (this.#overBudget(next, ctx)) return;
        return this.#startCodon(next, false);
      }
      case 'codon.redo': {
        if (this.#busy(ctx)) return;
        const target = redoCodon(lineageOf(this.#state));
        const codon = target === undefined ? undefined : this.#codons.find((c) => c.id === target);
        if (!codon)
          return ctx.fail(
            'NOTHING_TO_REDO',
            target === undefined
              ? 'no codon has ended in this run history yet; start one with codon.next or codon.start'
              : `codon ${target} is no longer in plan "${this.#o.plan.name}"; start one with codon.start`,
          );
        if (this.#overBudget(codon, ctx)) return;
        return this.#startCodon(codon, false);
      }
      case 'codon.skip':
      case 'codon.forceStop':
      case 'codon.message':
        return; // Taken by handle(), with the codon it was meant for.
      case 'checkpoint.list':
      case 'checkpoint.diff':
        return;
      case 'rollback.toCheckpoint':
      case 'rollback.toCodon':
      case 'rollback.toLastSuccess':
        return this.#rollbackCommand(command, ctx);
    }
  }

  /** codon.skip / codon.forceStop: ends the active codon; its end then decides what follows. */
  async #stopCommand(
    command: Extract<EngineCommand, { type: 'codon.skip' | 'codon.forceStop' }>,
    ctx: CommandContext,
    target: string | undefined,
  ): Promise<void> {
    if (this.#stopping) return ctx.fail('SHUTTING_DOWN', 'the server is shutting down; no new work is taken');
    const skip = command.type === 'codon.skip';
    const active = this.#lifecycle.active;
    if (active && target !== active.id) {
      return ctx.fail(
        'NO_CODON_RUNNING',
        target
          ? `codon ${target} had ended when this ${command.type} was taken; ${active.id} runs now and is left alone`
          : `no codon was running when this ${command.type} arrived; ${active.id} started since and is left alone`,
      );
    }
    if (!active) {
      return ctx.fail(
        'NO_CODON_RUNNING',
        `no codon is running, so there is nothing to ${skip ? 'skip' : 'stop'}; codon.next starts the next one`,
      );
    }
    const reason = skip ? '' : echo(command.data.reason, REASON_MAX_CHARS);
    // Claimed before anything is awaited, so a second skip or stop sent meanwhile is refused.
    const stopped = this.#lifecycle.stopActive(
      skip ? 'skip' : 'forceStop',
      skip ? undefined : clientStopReason(reason),
    );
    if (!stopped) {
      return ctx.fail(
        'CODON_STOPPING',
        `codon ${active.id} is already being ${this.#lifecycle.stopping === 'skip' ? 'skipped' : 'stopped'}; wait for its codon.completed`,
      );
    }
    await this.#publish('info', {
      message: skip ? `skipping codon ${active.id}` : `force-stopping codon ${active.id}: ${reason}`,
    });
    await stopped;
  }

  #busy(ctx: CommandContext): boolean {
    const active = this.#lifecycle.active;
    if (!active) return false;
    ctx.fail(
      'CODON_RUNNING',
      `codon ${active.id} is running; wait for codon.completed, or send codon.skip or codon.forceStop first`,
    );
    return true;
  }

  /** Refuses a start while the plan's budget (or the codon's loop's) is exhausted. */
  #overBudget(codon: RuntimeCodon, ctx: CommandContext): boolean {
    const refused = this.#budgets.refusal(codon.id);
    if (refused) ctx.fail('BUDGET_EXCEEDED', refused);
    return refused !== undefined;
  }

  async #rollbackCommand(command: RollbackCommand, ctx: CommandContext): Promise<void> {
    const active = this.#lifecycle.active;
    if (active) {
      return ctx.fail(
        'CODON_RUNNING',
        `codon ${active.id} is running; stop it with codon.forceStop (or codon.skip) first, then roll back`,
      );
    }
    const moved = await this.#rollbackTo(command);
    if (!moved.ok) return ctx.fail(moved.code, moved.message);
    await this.#proceed({ kind: 'rollback', autoRestart: command.data.autoRestart });
  }

  /** Resolves a rollback command's target and moves there (a new run); a failed move is also reported. */
  async #rollbackTo(command: RollbackCommand): Promise<Moved> {
    const fromRun = this.#runId();
    const lineage = await this.#o.checkpoints.lineage(fromRun);
    if (!lineage.ok) return lineage;
    const resolved = await resolveRollbackTarget(
      command,
      lineage.value,
      this.#o.checkpoints,
      this.#codons.map((c) => c.id),
      this.#o.plan.name,
    );
    if (!resolved.ok) return resolved;
    const { autoRestart } = command.data;
    const moved = await this.#rollBack(fromRun, lineage.value, resolved.value, command.type, autoRestart);
    this.#rollingBack = false;
    if (!moved.ok) {
      const message = `rollback to ${resolved.value.target.sha.slice(0, 12)} failed: ${moved.message}`;
      await this.#recorder.reportError('CHECKPOINT_FAILED', message, 'operation');
      return { ok: false, code: 'CHECKPOINT_FAILED', message };
    }
    return { ok: true };
  }

  // --- sentinel actions (README "Sentinel actions") --------------------------------------------------

  /** A sentinel's halt: the codon is stopped like codon.forceStop; its failureReason reads `stopped ${why}`. */
  sentinelHalt(codonId: string, why: string): ActionResult {
    const refused = this.#sentinelStopRefusal(codonId);
    if (refused) return { ok: false, message: refused };
    const stopped = this.#lifecycle.stopActive('forceStop', why);
    if (!stopped) return { ok: false, message: `codon ${codonId} is already being stopped` };
    stopped.catch((error: unknown) => this.#log.error({ err: error }, 'a sentinel halt failed'));
    return { ok: true };
  }

  /**
   * A sentinel's rollback (`redo` absent) or redo: stops the codon like a halt; once its end is
   * recorded, rolls back to its start (a new run, as rollback.toCodon start), then idles, or (redo)
   * runs the codon again with `redo.text` added to its prompt. Refused while a rollback is under way.
   * From the moment it is taken the server refuses state changes (ROLLBACK_IN_PROGRESS), as for a
   * client's rollback. What fails after that is handed to `failed`, and the server idles.
   */
  sentinelRollback(
    codonId: string,
    why: string,
    redo: { text: string | undefined; from: Extract<MessageSender, { kind: 'sentinel' }> } | undefined,
    failed: (message: string) => void,
  ): ActionResult {
    if (this.rollingBack) return { ok: false, message: 'a rollback is already under way' };
    const refused = this.#sentinelStopRefusal(codonId);
    if (refused) return { ok: false, message: refused };
    const stopped = this.#lifecycle.stopActive('forceStop', why);
    if (!stopped) return { ok: false, message: `codon ${codonId} is already being stopped` };
    stopped.catch((error: unknown) => this.#log.error({ err: error }, 'a sentinel stop failed'));
    this.#rollbacksQueued += 1;
    let pending = true;
    const settle = () => {
      if (!pending) return false;
      pending = false;
      this.#rollbacksQueued -= 1;
      return true;
    };
    this.#followUp = {
      codonId,
      run: async () => {
        if (!settle()) return;
        if (this.#stopping) return failed('the server is shutting down');
        this.#rollingBack = true;
        let moved: Moved;
        try {
          moved = await this.#rollbackTo({
            id: `sentinel-${codonId}`,
            type: 'rollback.toCodon',
            data: { codonId, checkpointType: 'start', autoRestart: false },
          });
        } finally {
          this.#rollingBack = false;
        }
        if (!moved.ok) {
          failed(`${moved.code}: ${moved.message}`);
          return void (await this.#idle('codon-completed'));
        }
        if (!redo) return this.#proceed({ kind: 'rollback', autoRestart: false });
        const codon = this.#codons.find((c) => c.id === codonId);
        const budget = codon ? this.#budgets.refusal(codon.id) : `codon ${codonId} is not in the plan`;
        if (!codon || budget) {
          failed(`codon ${codonId} was rolled back but not run again: ${budget}`);
          return void (await this.#idle('codon-completed', budget));
        }
        // The sentinel's text reaches the agent in the new run's prompt.
        const said = redo.text === undefined ? [] : [{ text: redo.text, from: redo.from }];
        return this.#startCodon(codon, false, undefined, said);
      },
      drop: (why) => {
        if (settle()) failed(`the rollback did not happen: ${why}`);
      },
    };
    return { ok: true };
  }

  #sentinelStopRefusal(codonId: string): string | undefined {
    if (this.#stopping) return 'the server is shutting down';
    return this.#lifecycle.stopRefusal(codonId);
  }

  /** The follow-up of the codon whose end is being recorded, taken once. */
  #takeFollowUp(codonId: string): FollowUp | undefined {
    const followUp = this.#followUp;
    if (followUp?.codonId !== codonId) return undefined;
    this.#followUp = undefined;
    return followUp;
  }

  /** A rollback (or recovery) into a new run, with the rollback flag up and snapshots around it. */
  async #rollBack(
    fromRun: string,
    lineage: readonly CheckpointRecord[],
    target: RollbackTarget,
    requested: string,
    autoRestart: boolean,
  ): Promise<{ ok: true } | { ok: false; message: string }> {
    this.#rollingBack = true;
    try {
      await this.#snapshot();
      return await switchRun(
        {
          state: () => this.#state,
          codons: this.#codons,
          recorder: this.#recorder,
          steps: this.#steps,
          bus: this.#o.bus,
          newRunId: this.#o.newRunId,
          rollback: { ...this.#restoreDeps(), rigDirs: this.#o.rigDirs },
        },
        { fromRun, lineage, target, requested, autoRestart },
      );
    } finally {
      this.#rollingBack = false;
      await this.#snapshot();
    }
  }

  // --- server start: recovery -----------------------------------------------------------------------

  async #startup(): Promise<void> {
    const leftover = await endLeftoverAgents(this.#o.agentStateDir, this.#o.stopGraceMs, this.#log);
    const previousId = this.#state.runOrder.at(-1);
    const runId = this.#o.bus.runId;
    let told: string | undefined;
    const before = previousId ? runOf(this.#state, previousId) : undefined;
    // Where a run that did not end well goes back to: its last clean point the state recorded. What
    // git holds beyond it (a kill between a commit and its record) is set aside first, and said.
    const point =
      before && before.status !== 'completed'
        ? await recoveryPoint(this.#o.checkpoints, before, recordedShas(this.#state))
        : undefined;
    const orphans =
      before && point?.ok ? await setAsideOrphans(this.#o.checkpoints, before.runId, point.value) : undefined;
    const cutShort = before?.status === 'running' ? this.#o.interruptedRollback?.(before.runId) : undefined;
    const rollbackNote = cutShort ? describeInterruptedRollback(cutShort) : undefined;
    const found = [orphans, rollbackNote].filter((n) => n !== undefined).join('; ') || undefined;
    if (previousId && before?.status === 'running') {
      // The crashed run's own end (its codon's codon.completed) is journaled as part of that run.
      this.#o.bus.setRunId(previousId);
      try {
        if (this.#o.lastCodonEvent)
          await completeUnended(this.#recorder, this.#state, previousId, this.#o.lastCodonEvent);
        this.#carried = this.#o.carryOver?.() ?? new Map();
        told = await markCrashed(
          this.#recorder,
          this.#state,
          previousId,
          leftover.ended,
          (codonId) => {
            const carried = this.#carried.get(codonId);
            return carried ? describeCarried(codonId, carried) : undefined;
          },
          (codonId, agentCost) => {
            // The codon's last agent run: a feedback round's entry replaces its first round's.
            const entry = leftover.sessions.findLast((e) => e.codonId === codonId);
            return entry ? unreportedSpend(entry, agentCost, this.#o.adapters, this.#o.agentStateDir) : 0;
          },
          found,
        );
        if (!told && found)
          await this.#recorder.reportError(
            rollbackNote ? 'RUN_CRASHED' : 'CHECKPOINT_WARNING',
            rollbackNote ? `the server stopped during a rollback: ${found}` : found,
            'warning',
          );
      } finally {
        this.#o.bus.setRunId(runId);
      }
    } else {
      this.#carried = this.#o.carryOver?.() ?? new Map();
      if (found) await this.#recorder.reportError('CHECKPOINT_WARNING', found, 'warning');
    }
    const previous = previousId ? runOf(this.#state, previousId) : undefined;
    const autostart = this.#o.autostart;
    let recovered = false;
    if (previous && (previous.status === 'crashed' || previous.status === 'failed')) {
      // Back to the run's last clean point, so the codon that broke starts again from a clean tree.
      if (point?.ok) {
        const startOf = recoveryCodon(lineageOf(this.#state, previous.runId), previous.interruptedCodonId);
        const moved = await this.#rollBack(
          previous.runId,
          point.value.lineage,
          { target: point.value.target, ...(startOf ? { startOf } : {}) },
          'recovery',
          autostart,
        );
        recovered = moved.ok;
        if (!moved.ok)
          await this.#recorder.reportError(
            'CHECKPOINT_FAILED',
            `recovery could not restore the agent root: ${moved.message}; the run goes on from the tree as it is`,
            'fatal',
          );
      } else {
        await this.#recorder.reportError(
          'CHECKPOINT_FAILED',
          `recovery found no checkpoint of run ${previous.runId} to return to: ${point?.message ?? 'none was looked for'}`,
          'warning',
        );
      }
    }
    if (!recovered) {
      // A run that ended at the start of a codon (a rollback, then a shutdown) is still there.
      const startOf = previous ? lineageOf(this.#state, previous.runId).atStartOf : undefined;
      await this.#apply('RunStarted', {
        runId,
        startedAt: new Date().toISOString(),
        reason: previous?.status === 'crashed' ? 'recovery' : 'start',
        ...(previous ? { fromRunId: previous.runId } : {}),
        ...(startOf ? { startOf } : {}),
      });
      await this.#steps.startCheckpointRun(runId);
    }
    if (previous && previous.status !== 'running') {
      const p = progress(this.#codons, lineageOf(this.#state));
      this.#resumed = {
        runCount: this.#state.runOrder.length,
        done: p.done,
        total: p.total,
        ...(p.next ? { nextCodonId: p.next } : {}),
        previousRunStatus: previous.status,
        recovered,
      };
    }
    // What no crash warning named (a redo the crash interrupted, an earlier crash's): said in this run.
    for (const [codonId, carried] of this.#carried)
      if (codonId !== told)
        await this.#publish('info', {
          message: `a server stopped before codon ${codonId} ran again: ${describeCarried(codonId, carried)}`,
        });
    await this.#snapshot();
    // Its own task: the server announces it listens once the run has begun, not after rig setup.
    this.#enqueue(() => this.#proceed({ kind: 'startup', autostart }));
  }

  // --- publishing ---------------------------------------------------------------------------------------

  /**
   * Idles for `reason`. An exhausted budget that refuses what would start next (`refused`, else what
   * codon.next names) is said in the message and in `heldBy`: the run cannot go on by itself.
   */
  #idle(reason: IdleReason, refused?: string): Promise<unknown> {
    const idle = idleEvent(reason, this.#o.plan, lineageOf(this.#state));
    if (idle.nextCodonId === undefined) this.#budgets.settle();
    const held =
      refused ?? (idle.nextCodonId === undefined ? undefined : this.#budgets.refusal(idle.nextCodonId));
    return this.#publish(
      'server.idle',
      held ? { ...idle, message: `${idle.message}; ${held}`, heldBy: 'budget' } : idle,
    );
  }

  #snapshot(): Promise<unknown> {
    return this.#publish(
      'state.snapshot',
      buildSnapshot(this.#state, {
        fileTree: this.#o.fileTree(),
        isRollingBack: this.rollingBack,
        now: Date.now(),
        budgets: this.#budgets.status(),
      }),
    ).catch((error: unknown) => this.#log.error({ err: error }, 'snapshot failed'));
  }

  /** What writes a checkpoint back into the agent root (a rollback, a retry's return to a start). */
  #restoreDeps(): RestoreDeps {
    return {
      store: this.#o.checkpoints.store,
      archive: this.#o.archive,
      agentRoot: this.#o.agentRoot,
      publish: <T extends EventType>(type: T, data: EventInput<T>) => this.#publish(type, data),
    };
  }

  #publish<T extends EventType>(type: T, data: EventInput<T>): Promise<unknown> {
    return this.#recorder.publish(type, data);
  }

  #apply<T extends StateTransitionType>(type: T, data: TransitionData<T>): Promise<unknown> {
    return this.#recorder.apply(type, data);
  }
}
