import { mkdirSync } from 'node:fs';
import type { Logger } from 'pino';
import type { EventInput, EventType, MessageSender } from '../core/protocol/index.ts';
import { isActive } from '../execution/state/codon-status.ts';
import { latestRunId, runOf } from '../execution/state/reducer.ts';
import type { SpendGate } from '../llm/spend/spend-gate.ts';
import type { RuntimeCodon } from '../plan/index.ts';
import { actionEngine } from './action-engine.ts';
import { ApprovalGate } from './approval/approval-gate.ts';
import { holdsRun, waitingMessage, waysOut } from './approval/rules.ts';
import { BudgetKeeper } from './budget-keeper.ts';
import type { CarriedMessage } from './carry-over.ts';
import { lineageEntries } from './checkpoint-list.ts';
import { noHooks } from './codon-hooks.ts';
import { CodonLifecycle } from './codon-lifecycle.ts';
import { CodonSteps } from './codon-steps.ts';
import { type CommandTable, commandTable, dispatch } from './commands.ts';
import type { CommandContext, Engine, EngineCommand, ReadyInfo, SendToClient } from './engine.ts';
import { type DeliveryOutcome, deliverMessage } from './message-delivery.ts';
import type { OrchestratorOptions } from './orchestrator-options.ts';
import {
  nextPhase,
  type OrchestratorPhase,
  type PhaseChange,
  rollingBack,
  stopping,
} from './orchestrator-phase.ts';
import type { CodonOutcome } from './outcome/failure.ts';
import type { ActionEngine, ActionResult, SentinelComment, SentinelSender } from './ports.ts';
import { Recorder } from './recorder.ts';
import { firstAttempt, type NextAttempt, showsAttempts } from './retries/retry-policy.ts';
import { Retrying } from './retrying.ts';
import { noReviews, type ReviewReads } from './review/review-journal.ts';
import { makeComment } from './review-comment.ts';
import { commentDeps, reviewRoutes } from './review-routes.ts';
import type { RestoreDeps } from './rollback.ts';
import { RollbackAdmission } from './rollback-admission.ts';
import { Rollbacks } from './rollbacks.ts';
import { runEndAtShutdown } from './run-end.ts';
import { type SentinelRecords, sentinelRecords } from './sentinel-records.ts';
import { buildSnapshot } from './snapshot.ts';
import { beginRun, incompleteCodon, recoverAtStartup } from './startup-recovery.ts';
import { LimitedAgents } from './usage-limits/limited-agents.ts';
import { decide, type EndStatus, type IdleReason, idleEvent, lineageOf, type Trigger } from './what-next.ts';

/**
 * The engine: one serialized queue takes the server's start, every command and every codon's end,
 * one at a time. What runs next is always asked of the rules (what-next.ts) over the recorded
 * state, in one place (`#proceed`), so no order of commands, rollbacks, crashes and restarts can
 * start two codons at once. Its own phase (open, rolling back, stopping) is one union changed in one
 * place (`#change`). A codon's course is CodonLifecycle's; commands route through one table
 * (commands.ts); a server's start is recoverAtStartup; sentinel actions are actionEngine.
 */
export class Orchestrator implements Engine {
  readonly #o: OrchestratorOptions;
  readonly #log: Logger;
  readonly #recorder: Recorder;
  readonly #steps: CodonSteps;
  readonly #lifecycle: CodonLifecycle;
  readonly #budgets: BudgetKeeper;
  /** The automatic retry waiting for its time, if any (docs/unattended.md#automatic-retries-and-the-fallback-model). */
  readonly #retries: Retrying;
  /** What is known of the agents' usage limits (docs/unattended.md#usage-limits). */
  readonly #limits: LimitedAgents;
  /** The approval wait, if a codon holds the run (docs/review.md#approval-gates). */
  readonly #approval: ApprovalGate<CommandContext>;
  readonly #admission = new RollbackAdmission(() => rollingBack(this.#phase));
  readonly #rollbacks: Rollbacks;
  readonly #commands: CommandTable;
  #phase: OrchestratorPhase = { kind: 'open' };
  #queue: Promise<void> = Promise.resolve();
  /** Resolves once the running codon's end has been recorded. */
  #finished: Promise<void> = Promise.resolve();
  #resumed: ReadyInfo['resumed'];
  /** This server's run while the execution's completed run stays current: begun by the first codon start. */
  #pendingRun: string | undefined;
  /** Texts a crash kept from an agent (or a redo it interrupted), by codon: its next start's prompt takes them. */
  #carried = new Map<string, CarriedMessage[]>();
  /** Review comments and reviews in the journal (docs/review.md). */
  readonly #reviews: ReviewReads;
  /** The engine's stop and rollback paths, as sentinel actions call them. */
  readonly actions: ActionEngine;
  /** What sentinels record in the run's state (their costs, their load and unload). */
  readonly sentinelRecords: SentinelRecords;

  constructor(options: OrchestratorOptions) {
    this.#o = options;
    mkdirSync(options.agentStateDir, { recursive: true });
    this.#log = options.logger.child({ component: 'engine' });
    this.#reviews = options.reviews ?? noReviews;
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
      unreportedSpend: (codonId) => this.#budgets.unreported(codonId),
    });
    this.#budgets = new BudgetKeeper({
      planName: options.plan.name,
      limits: options.budget,
      codons: options.plan.codons,
      recorder: this.#recorder,
      logger: this.#log,
      stopActive: (message) => this.#lifecycle.stopActive('budget', message),
      exhausted: (message) => this.#enqueue(() => this.#retries.budgetRanOut(message)),
      snapshot: () => this.#snapshot(),
    });
    this.sentinelRecords = sentinelRecords(this.#recorder, () => this.#state, this.#log);
    const { requestStop } = options;
    const shared = {
      stopping: () => stopping(this.#phase),
      budgetRefusal: (codonId: string) => this.#budgets.refusal(codonId),
      admission: this.#admission,
    };
    this.#limits = new LimitedAgents(options.sharedLimits);
    this.#retries = new Retrying({
      autostart: options.autostart,
      checkpoints: options.checkpoints,
      restore: this.#restoreDeps(),
      recorder: this.#recorder,
      state: () => this.#state,
      stopping: shared.stopping,
      active: () => this.#lifecycle.active !== undefined,
      refusal: shared.budgetRefusal,
      enqueue: (task, context) => this.#enqueue(task, context),
      proceed: (trigger) => this.#proceed(trigger),
      idle: (reason, refused) => this.#idle(reason, refused),
      startCodon: (codon, skipPreCommands, attempt) => this.#startCodon(codon, skipPreCommands, attempt),
      defaultModel: options.defaultModel,
      planned: (codonId) => this.#codons.find((c) => c.id === codonId),
      limits: this.#limits,
      clock: (codonId, stopped) =>
        stopped ? this.#budgets.pauseClock(codonId) : this.#budgets.resumeClock(),
      ...(requestStop
        ? {
            abort: (reason: string) => {
              this.#change({ kind: 'stop', reason });
              requestStop(reason);
            },
          }
        : {}),
    });
    this.#approval = new ApprovalGate({
      publish: (type, data) => this.#publish(type, data),
      enqueue: (task, context) => this.#enqueue(task, context),
      goOn: () => this.#proceed({ kind: 'codon-ended', status: 'completed', autostart: options.autostart }),
      idle: () => this.#idle('codon-completed'),
      // A review to redo the waiting codon is checked before the wait ends (`review` is made below).
      check: (command) =>
        command.type === 'review.submit'
          ? review.refusal(command as Extract<EngineCommand, { type: 'review.submit' }>)
          : undefined,
      approveAll: options.approveAll === true,
      autostart: options.autostart,
    });
    this.#rollbacks = new Rollbacks({
      ...shared,
      planName: options.plan.name,
      codons: options.plan.codons,
      state: () => this.#state,
      checkpoints: options.checkpoints,
      recorder: this.#recorder,
      steps: this.#steps,
      bus: options.bus,
      newRunId: options.newRunId,
      rollback: { ...this.#restoreDeps(), rigDirs: options.rigDirs },
      active: () => this.#lifecycle.active?.id,
      change: (change) => this.#change(change),
      snapshot: () => this.#snapshot(),
      proceed: (trigger) => this.#proceed(trigger),
    });
    const review = reviewRoutes({
      ...shared,
      plan: options.plan,
      state: () => this.#state,
      lifecycle: this.#lifecycle,
      checkpoints: options.checkpoints,
      reviews: this.#reviews,
      logger: this.#log,
      enqueue: (task, context) => this.#enqueue(task, context),
      publish: (type, data) => this.#publish(type, data),
      sendMessage: (text, from) => this.sendMessage(text, from),
      rollBackToStart: (codonId) => this.#rollbacks.toStart(codonId, 'client'),
      startCodon: (codon, said) => this.#startCodon(codon, false, undefined, said),
      idle: (reason, refused) => this.#idle(reason, refused),
    });
    this.#commands = commandTable({
      ...shared,
      plan: options.plan,
      state: () => this.#state,
      lifecycle: this.#lifecycle,
      checkpoints: options.checkpoints,
      enqueue: (task, context) => this.#enqueue(task, context),
      startCodon: (codon, skipPreCommands) => this.#startCodon(codon, skipPreCommands),
      rollbackTurn: (command, context) => this.#rollbacks.commandTurn(command, context),
      sendMessage: (text, from) => this.sendMessage(text, from),
      info: (message) => this.#publish('info', { message }),
      approve: (command, context) => this.#approval.approve(command.data, context),
      review,
    });
    this.actions = actionEngine({
      ...shared,
      lifecycle: this.#lifecycle,
      logger: this.#log,
      rollBackToStart: (codonId) => this.#rollbacks.toStart(codonId),
      proceed: (trigger) => this.#proceed(trigger),
      idle: (reason, refused) => this.#idle(reason, refused),
      codon: (codonId) => this.#codons.find((c) => c.id === codonId),
      startCodon: (codon, said) => this.#startCodon(codon, false, undefined, said),
      comment: (codonId, comment, from, failed) => this.#sentinelComment(codonId, comment, from, failed),
    });
  }

  /**
   * A sentinel's comment: on the codon's diff from its start to its end checkpoint, so on a running
   * codon once its end is recorded (a running codon has no end checkpoint to quote from).
   */
  #sentinelComment(
    codonId: string,
    comment: SentinelComment,
    from: SentinelSender,
    failed: (message: string) => void,
  ): ActionResult {
    const ended = this.#lifecycle.active?.id === codonId ? this.#finished : Promise.resolve();
    const deps = commentDeps({
      plan: this.#o.plan,
      state: () => this.#state,
      checkpoints: this.#o.checkpoints,
      lifecycle: this.#lifecycle,
      publish: (type, data) => this.#publish(type, data),
    });
    ended
      .then(() => makeComment(deps, { codonId, ...comment }, from))
      .then((made) => (made.ok ? undefined : failed(`${made.error.code}: ${made.error.message}`)))
      .catch((error: unknown) => failed((error as Error).message));
    return { ok: true };
  }

  /** The one place the phase changes; each change is logged. */
  #change(change: PhaseChange): void {
    const from = this.#phase;
    this.#phase = nextPhase(from, change);
    if (this.#phase !== from) this.#log.debug({ from, to: this.#phase }, 'engine phase');
  }

  /** A rollback waits or runs: the server refuses state-modifying commands (ROLLBACK_IN_PROGRESS). */
  /** The budget check before each LLM request (BudgetKeeper.spendGate). */
  get spendGate(): SpendGate {
    return this.#budgets.spendGate;
  }

  get rollingBack(): boolean {
    return this.#admission.busy;
  }

  get #codons(): readonly RuntimeCodon[] {
    return this.#o.plan.codons;
  }

  get #state() {
    return this.#o.state.state;
  }

  #runId(): string {
    const id = latestRunId(this.#state);
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
    const incomplete = incompleteCodon(this.#state, this.#codons);
    if (incomplete) send('incomplete.codon', incomplete);
  }

  async #startup(): Promise<void> {
    const startup = await recoverAtStartup({
      ...this.#o,
      state: () => this.#state,
      codons: this.#codons,
      recorder: this.#recorder,
      steps: this.#steps,
      logger: this.#log,
      goBack: (fromRun, lineage, target) =>
        this.#rollbacks.recover(fromRun, lineage, target, this.#o.autostart),
    });
    this.#carried = startup.carried;
    this.#resumed = startup.resumed;
    this.#pendingRun = startup.pendingRun;
    for (const message of startup.notes) await this.#publish('info', { message });
    const wait = this.#o.pendingUsageWait?.();
    const waiting = wait ? this.#codons.find((c) => c.id === wait.codonId) : undefined;
    if (wait && waiting) await this.#retries.resumeWait(waiting, wait);
    // The codon waiting for approval is still the last one ended, and ended well (the recovery kept it).
    const approval = this.#o.pendingApproval?.();
    const last = lineageOf(this.#state).endings.at(-1);
    if (approval && last?.codonId === approval.codonId && last.status === 'completed') {
      await this.#approval.resume(approval);
      if (this.#resumed) this.#resumed = { ...this.#resumed, approvalWaitCodonId: approval.codonId };
    }
    await this.#snapshot();
    // Its own task: the server announces it listens once the run has begun, not after rig setup.
    this.#enqueue(() => this.#proceed({ kind: 'startup', autostart: this.#o.autostart }));
  }

  handle(command: EngineCommand, context: CommandContext): void {
    // An approval wait first: it refuses what may not start, or ends and lets the command go on.
    const gated = this.#approval.takeOver(command, context);
    if (gated === 'handled') return;
    dispatch(this.#commands, command, gated, (taken, given) => this.#retries.takeOver(taken, given));
  }

  /** Hands `text` to the running codon's agent (message-delivery.ts): clients and sentinels send through here. */
  sendMessage(text: string, from: MessageSender): DeliveryOutcome {
    return deliverMessage(
      {
        lifecycle: this.#lifecycle,
        recorder: this.#recorder,
        logger: this.#log,
        retryPending: () => this.#retries.pending,
      },
      text,
      from,
    );
  }

  async stop(reason: string): Promise<void> {
    this.#change({ kind: 'stop', reason });
    this.#budgets.close();
    const cancelled = this.#retries.cancel();
    const approval = this.#approval.wait;
    // A codon in rig setup holds the queue: stop its command first.
    if (this.#lifecycle.preparing)
      await this.#lifecycle.stopActive('forceStop', `by the server's shutdown (${reason})`);
    await this.#queue;
    // Sentinels first: the codon's end then does not wait for their pending calls.
    await this.#o.hooks?.shutdown();
    if (cancelled && !this.#recorder.halted)
      await this.#publish('info', {
        message: cancelled.usage
          ? `the server stops (${reason}) during the usage-limit wait before codon ${cancelled.codon.id}: a server started again waits until ${new Date(cancelled.usage.until).toISOString()}`
          : `the retry of codon ${cancelled.codon.id} (attempt ${cancelled.next.attempt} of ${cancelled.next.maxAttempts}) is cancelled by the server's shutdown (${reason})`,
      });
    if (approval && !this.#recorder.halted)
      await this.#publish('info', {
        message: `the server stops (${reason}) while codon ${approval.codonId} waits for approval: a server started again waits again`,
      });
    const active = this.#lifecycle.active;
    if (active) {
      this.#log.info({ codonId: active.id, reason }, 'stopping the running codon for shutdown');
      await this.#lifecycle.stopActive('forceStop', `by the server's shutdown (${reason})`);
      await this.#finished;
    }
    // After a storage failure nothing more is written: the next server marks the run crashed.
    const end = this.#recorder.halted
      ? undefined
      : runEndAtShutdown(this.#state, reason, new Date().toISOString());
    if (end) await this.#recorder.applyAll([end]);
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
    if (stopping(this.#phase) || this.#lifecycle.active || this.#retries.pending) return;
    // A codon waits for approval: nothing starts by itself until a person ends the wait.
    if (this.#approval.wait)
      return void (await this.#idle(trigger.kind === 'startup' ? 'startup' : 'codon-completed'));
    const decision = decide(trigger, this.#codons, lineageOf(this.#state));
    if (!('start' in decision)) return void (await this.#idle(decision.idle));
    // An exhausted budget holds the run: only a person (with a higher limit) moves it on.
    const refused = this.#budgets.refusal(decision.start.id);
    if (!refused) {
      // An agent known to be at its usage limit: its fallbackAgent runs the codon, or the run waits.
      const codon = await this.#retries.automaticStart(decision.start);
      return codon ? this.#startCodon(codon, false) : undefined;
    }
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
    const run = runOf(this.#state, this.#runId());
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
    // Whatever started it, a codon that starts ends any approval wait (the journal's codon.started says so).
    this.#approval.started();
    await this.#beginPendingRun();
    const runId = this.#runId();
    // A review sent to the next codon: whatever starts one (not an automatic retry of the same attempt's codon).
    const reviews = attempt === undefined ? this.#reviews.pendingNext() : [];
    const texts = [
      ...(this.#carried.get(planned.id) ?? []),
      ...reviews.map((r) => ({ text: r.text, from: r.by })),
      ...said,
    ];
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
          const followUp = this.#admission.takeHeld(codon.id);
          if (followUp) await followUp.run();
          else await this.#afterCodon(codon, runId, status, next, outcome);
        } finally {
          this.#admission.takeHeld(codon.id)?.drop("the codon's end could not be recorded");
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
    await this.#afterCodon(codon, runId, began, next, undefined);
  }

  /**
   * After a codon's end was recorded: a codon with approval: required that ended well holds the run
   * (docs/review.md#approval-gates); then its retries, or the decision of what runs next.
   */
  async #afterCodon(
    codon: RuntimeCodon,
    runId: string,
    status: EndStatus,
    attempt: NextAttempt,
    outcome: CodonOutcome | undefined,
  ): Promise<void> {
    const planned = this.#codons.find((c) => c.id === codon.id) ?? codon;
    if (holdsRun(planned, status) && !stopping(this.#phase) && !this.#recorder.halted)
      await this.#approval.begin(planned, this.#endCheckpoint(codon.id, runId));
    await this.#retries.afterCodon(codon, runId, status, attempt, outcome);
  }

  /** The checkpoint a codon ended at in the run's lineage (what an approval approves). */
  #endCheckpoint(codonId: string, runId: string): string | undefined {
    return lineageEntries(this.#state, runId).findLast(
      (e) => e.info?.codonId === codonId && e.info.checkpointType === 'completed',
    )?.sha;
  }

  /** The run this server did not begin at its start, begun now that a codon starts (unless a rollback began one). */
  async #beginPendingRun(): Promise<void> {
    const runId = this.#pendingRun;
    this.#pendingRun = undefined;
    if (runId === undefined || this.#state.currentRunId !== null) return;
    await beginRun(
      { ...this.#o, state: () => this.#state, recorder: this.#recorder, steps: this.#steps },
      runId,
    );
  }

  // --- publishing ---------------------------------------------------------------------------------------

  /**
   * Idles for `reason`. An approval wait holds the run (`heldBy: approval`, what waits and the ways
   * out). An exhausted budget that refuses what would start next (`refused`, else what
   * codon.next names) is said in the message and in `heldBy`: the run cannot go on by itself.
   */
  #idle(reason: IdleReason, refused?: string): Promise<unknown> {
    const idle = idleEvent(reason, this.#o.plan, lineageOf(this.#state));
    const approval = this.#approval.wait;
    if (approval)
      return this.#publish('server.idle', {
        ...idle,
        message: `${waitingMessage(approval)}; ${waysOut(approval.codonId)}`,
        heldBy: 'approval',
        approval,
      });
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
        usageLimitWait: this.#retries.usageWait,
        approvalWait: this.#approval.wait,
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
}
