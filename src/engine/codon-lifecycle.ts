import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { adapterFor } from '../agents/adapters.ts';
import type { AgentAdapters } from '../agents/agent-adapter.ts';
import type { CheckpointType, ErrorCode, FailureReason } from '../core/protocol/index.ts';
import {
  type CodonRecord,
  codonOf,
  costOfCodon,
  type EngineState,
  reduce,
  runOf,
} from '../execution/state/reducer.ts';
import type { Transition, TransitionData } from '../execution/state/transitions.ts';
import { agentProvider, type ProviderTarget } from '../llm/providers/providers.ts';
import type { RuntimeCodon } from '../plan/index.ts';
import { describeError } from '../platform/storage/probe.ts';
import { AgentPidsFile } from './agent-pids.ts';
import type { CodonHooks } from './codon-hooks.ts';
import { CodonRun } from './codon-run.ts';
import type { CodonSteps } from './codon-steps.ts';
import { changedPaths, describeChange, type Fingerprint, fingerprintDir } from './data-fingerprint.ts';
import { DEFAULT_MESSAGE_QUEUE, type MessageQueueLimits, queueRefusal } from './message-queue.ts';
import {
  type CodonOutcome,
  classifyOutcome,
  errorCodeOf,
  type StopKind,
  stoppedMessage,
} from './outcome/failure.ts';
import { renderPromptPaths } from './prompt-paths.ts';
import type { Recorder } from './recorder.ts';
import type { MappedOutput } from './stream-mapper.ts';
import { runGates } from './verify/run-gates.ts';
import { throughGates } from './verify/verify-rounds.ts';
import type { EndStatus } from './what-next.ts';

export type LifecycleOptions = {
  state: () => EngineState;
  recorder: Recorder;
  steps: CodonSteps;
  hooks: CodonHooks;
  logger: Logger;
  adapters: AgentAdapters;
  agentRoot: string;
  /** The data directory's link in the agent root, for the agent and `{{dataDir}}`. */
  dataDir?: string;
  agentStateDir: string;
  defaultModel: string;
  /** Where the codon's agent calls (the proxy's route when it is on) and its key variable. */
  provider: (codon: RuntimeCodon) => ProviderTarget;
  stopGraceMs: number;
  snapshotIntervalMs: number;
  maxResultChars: number;
  /** What may wait for the agent, sent and not taken up (default DEFAULT_MESSAGE_QUEUE). */
  messageQueue?: MessageQueueLimits;
  /** Publishes a state.snapshot. */
  snapshot: () => Promise<unknown>;
};

/** Which attempt of a codon this start is (automatic retries), shown on codon.started. */
export type AttemptInfo = { attempt: number; maxAttempts: number; model: string };

/** A codon whose agent started: its agent (the latest round's), then its gates and feedback rounds. */
type Active = {
  codon: RuntimeCodon;
  run: CodonRun;
  /** Set once the latest agent run has exited (a stop then has no agent to end). */
  agentEnded: boolean;
  /** Set once the codon's outcome is final (agent, gates and rounds done): a stop then changes nothing. */
  settled?: boolean;
  /** The verification gates running now: aborting ends the running command. */
  gates?: { abort: AbortController; done: Promise<unknown> };
  stop?: { by: StopKind; reason?: string };
  startedAt: number;
  snapshotTimer: NodeJS.Timeout;
  agentSessionId?: string;
  /** The model this attempt runs with when it is not the codon's own (the fallback): feedback rounds keep it. */
  model?: string;
  /** The codon's agent cost and message count before the running round: its agent counts from 0. */
  base: { cost: number; messages: number };
};
/** A codon between codon.started and its agent (rig setup, the sentinels' go-ahead): stoppable too. */
type Preparing = {
  codon: RuntimeCodon;
  abort: AbortController;
  stop?: { by: StopKind; reason?: string };
};

/**
 * One codon from its start to its end, recorded: codon.started, rig setup, the sentinels' go-ahead,
 * the agent, then the end checkpoint, the archive (after a success), the final cost and
 * codon.completed. It holds the one running agent; what runs after a codon is the orchestrator's decision, not this class's.
 */
export class CodonLifecycle {
  readonly #o: LifecycleOptions;
  #active: Active | undefined;
  #preparing: Preparing | undefined;
  /** The data directory as the active codon found it (docs/agents.md#what-the-agent-may-do). */
  #dataBefore: Fingerprint | undefined;

  constructor(options: LifecycleOptions) {
    this.#o = options;
  }

  /** The codon that is preparing or whose agent runs, if any. */
  get active(): RuntimeCodon | undefined {
    return this.#active?.codon ?? this.#preparing?.codon;
  }

  /** True while the active codon is before its agent (rig setup): a stop then cannot wait in the queue. */
  get preparing(): boolean {
    return this.#preparing !== undefined;
  }

  /**
   * Starts a codon in `runId`. Resolves `running` once its agent works (`onExit` is called with the
   * outcome when the agent has exited), or with how it ended when it failed before its agent started.
   */
  async begin(
    codon: RuntimeCodon,
    runId: string,
    skipPreCommands: boolean,
    onExit: (outcome: CodonOutcome) => void,
    attempt?: AttemptInfo,
  ): Promise<'running' | EndStatus> {
    const previous = codon.continuation === 'continue-previous' ? this.#previousCodonOf(codon) : undefined;
    const sessionId = randomUUID();
    const startTime = new Date().toISOString();
    const { recorder } = this.#o;
    // Walked while the start is recorded: nothing writes to the data directory meanwhile.
    const dataBefore = this.#fingerprint();
    // One transaction: a kill between the start's record and its codon.started would leave the next
    // server a codon to report ended (codon.completed) that no client was ever told had started.
    await recorder.applyAll(
      [
        {
          type: 'CodonStarted',
          data: {
            runId,
            codonId: codon.id,
            codonName: codon.name,
            codonIndex: codon.index,
            sessionId,
            startTime,
            ...(previous?.sessionId ? { previousSessionId: previous.sessionId } : {}),
            ...(adapterFor(this.#o.adapters, codon.agent).reportsCost === false
              ? { costEstimated: true }
              : {}),
          },
        },
      ],
      [
        {
          type: 'codon.started',
          data: {
            codonId: codon.id,
            codonName: codon.name,
            ...(codon.description ? { codonDescription: codon.description } : {}),
            sessionId,
            ...(previous?.sessionId ? { previousSessionId: previous.sessionId } : {}),
            startTime,
            ...(attempt ?? {}),
            agent: codon.agent,
            ...(codon.promptMetadata ? { promptMetadata: codon.promptMetadata } : {}),
          },
        },
      ],
    );
    const preparing: Preparing = { codon, abort: new AbortController() };
    // Preparing from the moment it started: a stop or a crash check in between must see the codon.
    this.#preparing = preparing;
    let refused: FailureReason | undefined;
    try {
      this.#dataBefore = await dataBefore;
      const rig = await this.#o.steps.prepareRig(codon, runId, skipPreCommands, preparing.abort.signal);
      if (rig && rig !== 'aborted') return await this.#endWithoutAgent(codon, runId, rig, 'RIG_SETUP_FAILED');
      if (!preparing.stop) refused = await this.#o.hooks.beforeAgent(codon, runId);
    } finally {
      this.#preparing = undefined;
    }
    if (preparing.stop?.by === 'budget') {
      const message = `${stoppedMessage('budget', preparing.stop.reason)} (before its agent started)`;
      return this.#endWithoutAgent(
        codon,
        runId,
        { type: 'budget', retriable: false, message },
        'BUDGET_EXCEEDED',
      );
    }
    if (preparing.stop) {
      const { by, reason } = preparing.stop;
      return this.#endWithoutAgent(
        codon,
        runId,
        {
          type: 'unknown',
          retriable: false,
          message: `${stoppedMessage(by, reason)} (before its agent started)`,
        },
        'CODON_FAILED',
        by === 'skip' ? 'skipped' : 'stopped',
      );
    }
    if (refused) return this.#endWithoutAgent(codon, runId, refused, 'CODON_FAILED');
    await recorder.apply('CodonTransitioned', {
      runId,
      codonId: codon.id,
      from: 'preparing',
      to: 'running',
      at: new Date().toISOString(),
    });
    let run: CodonRun;
    try {
      run = this.#startAgent(codon, runId, previous?.agentSessionId, attempt?.model);
    } catch (error) {
      // The agent could not be started (its state directory cannot be made on a full disk, ...).
      const message = `the agent could not be started: ${describeError(error, this.#o.agentStateDir)}`;
      this.#o.logger.error({ err: error, codonId: codon.id }, message);
      return this.#endWithoutAgent(
        codon,
        runId,
        { type: 'unknown', retriable: false, message },
        'CODON_FAILED',
        'failed',
        'running',
      );
    }
    const snapshotTimer = setInterval(() => void this.#o.snapshot(), this.#o.snapshotIntervalMs);
    snapshotTimer.unref();
    const active: Active = {
      codon,
      run,
      agentEnded: false,
      startedAt: run.startedAt,
      snapshotTimer,
      base: { cost: 0, messages: 0 },
      ...(attempt?.model ? { model: attempt.model } : {}),
    };
    this.#active = active;
    await this.#o.snapshot();
    void this.#agentThenGates(active, runId).then((outcome) => {
      active.settled = true;
      onExit(outcome);
    });
    return 'running';
  }

  /** The agent's outcome, through the codon's verification gates and feedback rounds (src/engine/verify). */
  #agentThenGates(active: Active, runId: string): Promise<CodonOutcome> {
    const { codon } = active;
    const agentOutcome = (run: CodonRun) =>
      run.outcome.then((outcome) => {
        active.agentEnded = true;
        return outcome;
      });
    const pids = new AgentPidsFile(this.#o.agentStateDir, (error, file) =>
      this.#o.logger.warn({ err: error, codonId: codon.id }, `could not record a gate's pid in ${file}`),
    );
    const fail = (error: unknown) => this.#o.logger.error({ err: error }, 'recording a gate event failed');
    return throughGates(agentOutcome(active.run), {
      codonId: codon.id,
      gates: codon.verify.length,
      onVerifyFailure: codon.onVerifyFailure,
      stopped: () => active.stop,
      runGates: (round) => {
        const abort = new AbortController();
        const done = runGates({
          codonId: codon.id,
          gates: codon.verify,
          agentRoot: this.#o.agentRoot,
          env: codon.env,
          round,
          signal: abort.signal,
          publish: (type, data) => this.#o.recorder.publish(type, data).catch(fail),
          onProcess: (pid, running, mark) =>
            running
              ? pids.add({ pid, codonId: codon.id, startedAt: new Date().toISOString(), kind: 'gate', mark })
              : pids.remove(pid),
        }).finally(() => {
          active.gates = undefined;
        });
        active.gates = { abort, done };
        return done;
      },
      resume: (prompt) => {
        // The round's agent reports its own totals from 0: they add to what the codon spent so far.
        const record = this.#record(runId, codon.id);
        active.base = { cost: record?.agentCost ?? 0, messages: record?.assistantMessageCount ?? 0 };
        active.agentEnded = false;
        try {
          active.run = this.#startAgent(
            codon,
            runId,
            active.agentSessionId,
            active.model,
            prompt,
            active.base.cost,
          );
        } catch (error) {
          active.agentEnded = true;
          const why = describeError(error, this.#o.agentStateDir);
          return Promise.resolve({ exit: { type: 'error', code: 1 }, timedOut: false, startFailure: why });
        }
        return agentOutcome(active.run);
      },
      announce: (message) => this.#o.recorder.publish('info', { message }).catch(fail),
    }).catch((error: unknown) => {
      // Never left hanging: the codon ends, failed, with why.
      this.#o.logger.error({ err: error, codonId: codon.id }, 'verification failed unexpectedly');
      return {
        exit: { type: 'error', code: 1 },
        timedOut: false,
        startFailure: `verification failed unexpectedly: ${(error as Error).message}`,
      };
    });
  }

  #startAgent(
    codon: RuntimeCodon,
    runId: string,
    resumeSessionId: string | undefined,
    model: string | undefined,
    prompt = codon.prompt,
    costBefore = 0,
  ): CodonRun {
    return new CodonRun({
      codonId: codon.id,
      adapter: adapterFor(this.#o.adapters, codon.agent),
      start: {
        prompt: renderPromptPaths(prompt, { agentRoot: this.#o.agentRoot, dataDir: this.#o.dataDir }),
        model: model ?? codon.model ?? this.#o.defaultModel,
        cwd: this.#o.agentRoot,
        ...(this.#o.dataDir ? { dataDir: this.#o.dataDir } : {}),
        env: codon.env,
        ...agentProvider(this.#o.provider(codon)),
        stateDir: this.#o.agentStateDir,
        ...(resumeSessionId ? { resumeSessionId } : {}),
        ...(codon.systemPrompt ? { systemPrompt: codon.systemPrompt } : {}),
        ...(codon.appendSystemPrompt ? { appendSystemPrompt: codon.appendSystemPrompt } : {}),
      },
      timeoutMs: codon.timeoutMs,
      stallTimeoutMs: codon.stallTimeoutMs,
      stopGraceMs: this.#o.stopGraceMs,
      maxResultChars: this.#o.maxResultChars,
      logger: this.#o.logger,
      onOutput: (output) => this.#onOutput(runId, codon.id, output),
      costBefore,
    });
  }

  /**
   * Ends the active codon for a client (skip, forceStop), for shutdown or for its budget: its rig
   * setup command or its agent, whole process trees. The stop is claimed at once (a second one is
   * refused: undefined); the promise resolves once the processes are gone.
   */
  stopActive(by: StopKind, reason?: string): Promise<void> | undefined {
    const preparing = this.#preparing;
    if (preparing) {
      if (preparing.stop) return undefined;
      preparing.stop = { by, ...(reason ? { reason } : {}) };
      preparing.abort.abort();
      return Promise.resolve();
    }
    const active = this.#active;
    // Claimed once: a second skip or stop while the first ends the agent is refused.
    if (!active || active.stop) return undefined;
    active.stop = { by, ...(reason ? { reason } : {}) };
    // A gate runs: its command ends (and no feedback round starts after it).
    if (active.gates) {
      active.gates.abort.abort();
      return active.gates.done.then(() => {});
    }
    if (active.agentEnded) return Promise.resolve();
    return active.run.stop(by, reason);
  }

  /**
   * Hands `text` to the active codon's agent (docs/steering.md); when no agent
   * takes it, says why (nothing runs, rig setup runs, the agent finished or is being stopped).
   */
  sendMessage(
    text: string,
  ):
    | { ok: true; codonId: string; delivery: 'live' | 'next-turn' }
    | { ok: false; code?: 'MESSAGE_QUEUE_FULL'; message: string } {
    const preparing = this.#preparing;
    if (preparing)
      return {
        ok: false,
        message: `codon ${preparing.codon.id} is still preparing (rig setup, its sentinels); its agent has not started yet: send the message once it runs`,
      };
    const active = this.#active;
    if (!active) return { ok: false, message: 'no codon is running, so no agent takes the message' };
    const { id } = active.codon;
    if (active.stop)
      return { ok: false, message: `codon ${id} is being stopped; its agent takes no message` };
    if (!active.agentEnded) {
      const full = queueRefusal(
        id,
        active.run.backlog,
        Buffer.byteLength(text),
        this.#o.messageQueue ?? DEFAULT_MESSAGE_QUEUE,
      );
      if (full) return { ok: false, code: 'MESSAGE_QUEUE_FULL', message: full };
    }
    const delivery = active.agentEnded ? undefined : active.run.send(text);
    if (!delivery)
      return {
        ok: false,
        message: `the agent of codon ${id} has finished its work and takes no more input${active.gates ? ' (its verification gates run)' : ''}`,
      };
    return { ok: true, codonId: id, delivery };
  }

  /**
   * Why a sentinel action cannot stop `codonId` now, or undefined when it can: it is the active
   * codon, its agent (or a gate, or a feedback round) still runs, and no stop was asked for yet.
   */
  stopRefusal(codonId: string): string | undefined {
    if (this.#preparing?.codon.id === codonId) return `codon ${codonId} has not started its agent yet`;
    const active = this.#active;
    if (active?.codon.id !== codonId) return `codon ${codonId} is not running`;
    if (active.settled) return `codon ${codonId} has ended (its end is being recorded)`;
    if (active.stop)
      return `codon ${codonId} is already being ${active.stop.by === 'skip' ? 'skipped' : 'stopped'}`;
    return undefined;
  }

  /** How the active codon is being stopped, if it is. */
  get stopping(): StopKind | undefined {
    return this.#preparing?.stop?.by ?? this.#active?.stop?.by;
  }

  /** Records the end of the codon whose agent exited; returns how it ended. */
  async finish(codon: RuntimeCodon, runId: string, outcome: CodonOutcome): Promise<EndStatus> {
    const active = this.#active?.codon.id === codon.id ? this.#active : undefined;
    if (active) clearInterval(active.snapshotTimer);
    const { recorder, steps } = this.#o;
    if (recorder.halted) {
      // The storage failed and the server is stopping: nothing of the end can be recorded (not even
      // a checkpoint worth its git work); the next server finds the codon interrupted and recovers.
      if (active) this.#active = undefined;
      return 'stopped';
    }
    // The codon's processes have ended: the data directory is walked while the checkpoint is taken.
    const dataAfter = this.#dataBefore === undefined ? undefined : this.#fingerprint();
    const duration = active ? Date.now() - active.startedAt : 0;
    const classified = classifyOutcome(outcome);
    let { success, failureReason } = classified;
    let to: EndStatus =
      outcome.stoppedBy === 'skip'
        ? 'skipped'
        : outcome.stoppedBy === 'forceStop'
          ? 'stopped'
          : success
            ? 'completed'
            : 'failed';
    const checkpointType: CheckpointType =
      to === 'completed' ? 'completed' : to === 'skipped' ? 'skipped' : 'error';
    // Recorded below with the codon's end, in one transaction: a kill in between leaves a commit the
    // state never recorded, which recovery sets aside, and the codon runs again from its start.
    const checkpoint = await steps.commit(codon, runId, checkpointType, to);
    if (!checkpoint.ok && success) {
      // A step that cannot be undone is not a clean success.
      success = false;
      to = 'failed';
      failureReason = {
        type: 'unknown',
        retriable: false,
        message: `the completed checkpoint could not be written: ${checkpoint.error.message}`,
      };
    }
    // The completed checkpoint holds what the archive then moves: a rollback never loses it.
    if (success && checkpoint.ok) {
      // Before the archive, which may move the same files away.
      await steps.copyOutputs(codon);
      const archived = await steps.archive(codon, runId);
      if (archived) await steps.recordArchive({ ...archived, checkpointSha: checkpoint.value.record.sha });
    }
    await this.#recordEnd(checkpoint, {
      runId,
      codonId: codon.id,
      from: 'running',
      to,
      at: new Date().toISOString(),
      exitStatus: outcome.exit,
      duration,
      ...(failureReason ? { failureReason } : {}),
      ...(active?.agentSessionId ? { agentSessionId: active.agentSessionId } : {}),
    });
    await this.#o.hooks.afterAgent(codon, runId);
    await this.#checkDataDir(codon, dataAfter);
    // The final cost and codon.completed in one commit (one fsync, not two), in that order.
    const spent = this.#record(runId, codon.id);
    const finalCost: Transition[] = spent
      ? [
          {
            type: 'CodonFinalCostSet',
            data: { runId, codonId: codon.id, cost: spent.agentCost + spent.sentinelCost },
          },
        ]
      : [];
    const settled = finalCost.reduce(reduce, this.#o.state());
    await recorder.applyAll(finalCost, [
      {
        type: 'codon.completed',
        data: {
          codonId: codon.id,
          success,
          ...costOfCodon(codonOf(runOf(settled, runId), codon.id)),
          duration,
          exitStatus: outcome.exit,
          ...(failureReason ? { failureReason } : {}),
        },
      },
    ]);
    if (!success && to !== 'skipped') {
      await this.#codonError(
        codon,
        `${to === 'stopped' ? 'was stopped' : 'failed'}: ${failureReason?.message ?? 'no reason given'}`,
        errorCodeOf(failureReason, outcome.stalledAfterMs !== undefined),
        failureReason?.type,
      );
    }
    if (active) this.#active = undefined;
    await this.#o.snapshot();
    return to;
  }

  /**
   * A codon's end and its end checkpoint in one transaction: a kill before it leaves a commit the
   * state never recorded, which recovery sets aside (recovery.ts), and the codon counts as interrupted.
   */
  #recordEnd(
    checkpoint: Awaited<ReturnType<CodonSteps['commit']>>,
    data: TransitionData<'CodonTransitioned'>,
  ): Promise<unknown> {
    const created = checkpoint.ok ? [checkpoint.value.created] : [];
    return this.#o.recorder.applyAll([...created, { type: 'CodonTransitioned', data }]);
  }

  /** The journaled `error` (severity codon) that goes with a codon that did not end well. */
  #codonError(
    codon: RuntimeCodon,
    what: string,
    code: ErrorCode,
    context: string | undefined,
  ): Promise<unknown> {
    return this.#o.recorder.publish('error', {
      message: `codon ${codon.id} ${what}`,
      codon: codon.id,
      fatal: false,
      severity: 'codon',
      code,
      ...(context ? { context } : {}),
    });
  }

  /** The data directory's fingerprint now (none without a data directory); never rejects. */
  #fingerprint(): Promise<Fingerprint | undefined> {
    const dir = this.#o.dataDir;
    return dir === undefined ? Promise.resolve(undefined) : fingerprintDir(dir).catch(() => undefined);
  }

  /**
   * A warning when the data directory changed since the codon began (a shell command wrote there).
   * `taken`: its fingerprint, walked since the codon's processes ended; else it is walked now.
   */
  async #checkDataDir(codon: RuntimeCodon, taken?: Promise<Fingerprint | undefined>): Promise<void> {
    const before = this.#dataBefore;
    this.#dataBefore = undefined;
    const dir = this.#o.dataDir;
    if (before === undefined || dir === undefined) return;
    const after = await (taken ?? this.#fingerprint());
    if (after === undefined) return;
    const changed = changedPaths(before, after);
    if (changed.length === 0) return;
    await this.#o.recorder.reportError(
      'DATA_DIR_CHANGED',
      describeChange(dir, codon.id, changed),
      'warning',
      codon.id,
    );
  }

  #record(runId: string, codonId: string): CodonRecord | undefined {
    return codonOf(runOf(this.#o.state(), runId), codonId);
  }

  /** Fails a codon whose agent never started (a sentinel or rig setup refused it). */
  async #endWithoutAgent(
    codon: RuntimeCodon,
    runId: string,
    failureReason: FailureReason,
    code: ErrorCode,
    to: 'failed' | 'skipped' | 'stopped' = 'failed',
    from: 'preparing' | 'running' = 'preparing',
  ): Promise<EndStatus> {
    const { recorder } = this.#o;
    await this.#checkDataDir(codon);
    // No agent ran: exit status `error` with code 1, by convention.
    const exitStatus = { type: 'error' as const, code: 1 };
    const checkpoint = await this.#o.steps.commit(codon, runId, to === 'skipped' ? 'skipped' : 'error', to);
    await this.#recordEnd(checkpoint, {
      runId,
      codonId: codon.id,
      from,
      to,
      at: new Date().toISOString(),
      exitStatus,
      failureReason,
      duration: 0,
    });
    await recorder.publish('codon.completed', {
      codonId: codon.id,
      success: false,
      cost: 0,
      duration: 0,
      exitStatus,
      failureReason,
    });
    if (to !== 'skipped')
      await this.#codonError(
        codon,
        `${to === 'stopped' ? 'was stopped' : 'failed'} before its agent started: ${failureReason.message ?? failureReason.type}`,
        code,
        failureReason.type,
      );
    await this.#o.snapshot();
    return to;
  }

  #onOutput(runId: string, codonId: string, output: MappedOutput): void {
    const { recorder } = this.#o;
    const fail = (error: unknown) => this.#o.logger.error({ err: error }, 'recording agent output failed');
    switch (output.kind) {
      case 'event':
        recorder.publish(output.event.type, output.event.data).catch(fail);
        return;
      case 'cost':
        if (output.amount > 0)
          recorder
            .apply('CostsIncremented', { runId, codonId, amount: output.amount, source: 'agent' })
            .catch(fail);
        return;
      case 'messageCount':
        recorder
          .apply('AssistantMessageCountUpdated', {
            runId,
            codonId,
            count: this.#base().messages + output.count,
          })
          .catch(fail);
        return;
      case 'session':
        if (this.#active?.codon.id === codonId) this.#active.agentSessionId = output.agentSessionId;
        return;
      case 'result':
        if (output.finalCost !== undefined)
          recorder
            .apply('CostsUpdated', { runId, codonId, cost: this.#base().cost + output.finalCost })
            .catch(fail);
        return;
    }
  }

  /** What the codon's earlier feedback rounds spent (zero for the agent's first run). */
  #base(): Active['base'] {
    return this.#active?.base ?? { cost: 0, messages: 0 };
  }

  /** For continue-previous: the latest record of the codon before this one in the plan, in any run. */
  #previousCodonOf(codon: RuntimeCodon): CodonRecord | undefined {
    const state = this.#o.state();
    const before = codon.index > 0 ? codon.index - 1 : -1;
    if (before < 0) return undefined;
    for (const runId of [...state.runOrder].reverse()) {
      const found = Object.values(runOf(state, runId)?.codons ?? {}).find((c) => c.codonIndex === before);
      if (found) return found;
    }
    return undefined;
  }
}
