import { randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import type { Logger } from 'pino';
import { z } from 'zod';
import type { AgentAdapter } from '../agents/agent-adapter.ts';
import { isAlive, killTree } from '../agents/process-tree.ts';
import { type CheckpointRecord, runBranchName } from '../checkpoints/index.ts';
import type { EventBus } from '../journal/event-bus.ts';
import type { RuntimeCodon } from '../plan/index.ts';
import type { LoadedPlan } from '../plan/loaded-plan.ts';
import type {
  CheckpointType,
  CodonStatus,
  ErrorCode,
  ErrorSeverity,
  EventInput,
  EventType,
  FailureReason,
  FileNode,
  StateTransitionType,
} from '../protocol/index.ts';
import type { StateStore } from '../state/state-store.ts';
import type { TransitionData } from '../state/transitions.ts';
import type { ArchiveManifest } from './archive.ts';
import { listCheckpoints } from './checkpoint-list.ts';
import type { Checkpointing, Outcome } from './checkpointing.ts';
import { type CodonHooks, noHooks } from './codon-hooks.ts';
import { activeAgentFile, CodonRun } from './codon-run.ts';
import { CodonSteps } from './codon-steps.ts';
import type { CommandContext, Engine, EngineCommand, SendToClient } from './engine.ts';
import { classifyOutcome } from './failure.ts';
import { redoTarget, resumeIndex } from './next-codon.ts';
import { Recorder } from './recorder.ts';
import type { RigDirsLog } from './rig-dirs.ts';
import { performRollback } from './rollback.ts';
import { buildSnapshot } from './snapshot.ts';
import type { MappedOutput } from './stream-mapper.ts';

export type OrchestratorOptions = {
  plan: LoadedPlan;
  bus: EventBus;
  state: StateStore;
  logger: Logger;
  autostart: boolean;
  /** Base URL the agents call: the proxy when it is on, else the provider. */
  providerBaseUrl: () => string;
  adapters: Record<'builtin' | 'claude-code', AgentAdapter>;
  agentRoot: string;
  /** Per-execution agent files (sessions, CLI home). */
  agentStateDir: string;
  defaultModel: string;
  stopGraceMs: number;
  snapshotIntervalMs: number;
  maxResultChars: number;
  fileTree: () => FileNode[];
  /** Work beside each codon's agent (sentinels). */
  hooks?: CodonHooks;
  checkpoints: Checkpointing;
  archive: ArchiveManifest;
  rigDirs: RigDirsLog;
  executionDir: string;
  rigArchive: string;
  /** A fresh run id (a rollback continues in a new run). */
  newRunId: () => string;
};

type Active = { codon: RuntimeCodon; run: CodonRun; sessionId: string; snapshotTimer: NodeJS.Timeout };

/**
 * The engine: takes the validated commands one at a time, runs codons with their agents, and
 * records every change as a transition. Agents run in the background; commands that act on a
 * running codon (skip, forceStop) reach it through `#active`.
 */
export class Orchestrator implements Engine {
  readonly #o: OrchestratorOptions;
  readonly #log: Logger;
  #queue: Promise<void> = Promise.resolve();
  #active: Active | undefined;
  #stopping = false;
  #interrupted: { codonId: string; codonName: string } | undefined;
  /** The codon that ends is followed by this one (skip moves on even without autostart). */
  #afterActive: 'auto' | 'next' | 'idle' = 'auto';

  readonly #recorder: Recorder;
  readonly #steps: CodonSteps;

  constructor(options: OrchestratorOptions) {
    this.#o = options;
    mkdirSync(options.agentStateDir, { recursive: true });
    this.#log = options.logger.child({ component: 'engine' });
    this.#recorder = new Recorder({ bus: options.bus, state: options.state, logger: this.#log });
    this.#steps = new CodonSteps({ ...options, recorder: this.#recorder, logger: this.#log });
  }

  #rollingBack = false;

  get rollingBack(): boolean {
    return this.#rollingBack;
  }

  get #codons(): readonly RuntimeCodon[] {
    return this.#o.plan.codons;
  }

  #runId(): string {
    const id = this.#o.state.state.currentRunId;
    if (!id) throw new Error('no current run');
    return id;
  }

  async start(): Promise<void> {
    await this.#endLeftoverAgent();
    const { state } = this.#o;
    const previousId = state.state.runOrder.at(-1);
    const previous = previousId ? state.state.runs[previousId] : undefined;
    const now = new Date().toISOString();
    if (previous?.status === 'running') {
      const interrupted = previous.order
        .map((id) => previous.codons[id])
        .find((c) => c?.status === 'preparing' || c?.status === 'running');
      await this.#apply('RunCrashed', {
        runId: previous.runId,
        detectedAt: now,
        ...(interrupted ? { codonId: interrupted.codonId } : {}),
      });
      if (interrupted) {
        this.#interrupted = { codonId: interrupted.codonId, codonName: interrupted.codonName };
        await this.#publish('error', {
          message: `the server stopped while codon ${interrupted.codonId} ran; it is marked failed`,
          codon: interrupted.codonId,
          fatal: false,
          severity: 'warning',
          code: 'RUN_CRASHED',
        });
      }
    }
    const ended = previous ? state.state.runs[previous.runId] : undefined;
    const runId = this.#o.bus.runId;
    // A run that crashed or failed is recovered: back to its last success before anything else.
    let recovery: CheckpointRecord | undefined;
    if (ended && (ended.status === 'crashed' || ended.status === 'failed')) {
      const lineage = await this.#o.checkpoints.lineage(ended.runId);
      if (lineage.ok) {
        recovery =
          lineage.value.findLast((c) => !c.initial && c.checkpointType === 'completed') ??
          lineage.value.find((c) => c.initial && c.runId === ended.runId);
        if (recovery) {
          this.#rollingBack = true;
          const done = await performRollback(this.#rollbackDeps(), {
            target: recovery,
            lineage: lineage.value,
            fromRun: ended.runId,
            fromCodon: ended.order.at(-1) ?? '',
            requested: 'recovery',
          });
          this.#rollingBack = false;
          if (!done.ok) {
            await this.#reportError(
              'CHECKPOINT_FAILED',
              `recovery could not restore the agent root: ${done.message}`,
              'fatal',
            );
            recovery = undefined;
          }
        }
      }
    }
    await this.#apply('RunStarted', {
      runId,
      startedAt: now,
      reason: ended?.status === 'crashed' || recovery ? 'recovery' : 'start',
      nextCodonIndex: recovery ? this.#indexAfter(recovery) : resumeIndex(ended),
      ...(previous ? { fromRunId: previous.runId } : {}),
      ...(recovery ? { fromCheckpoint: recovery.sha } : {}),
    });
    await this.#steps.startCheckpointRun(runId, recovery?.sha);
    if (recovery && ended) await this.#rollbackCompleted(ended.runId, runId, recovery, this.#o.autostart);
    this.#enqueue(async () => {
      const next = this.#nextCodon();
      if (this.#o.autostart && next) await this.#startCodon(next, false);
      // With autostart on and nothing left, the plan has run: say so rather than just "startup".
      else await this.#idle(this.#o.autostart && !next ? 'all-codons-completed' : 'startup');
    });
  }

  /** A server that was killed leaves its agent (and the agent's tools) running: end them first. */
  async #endLeftoverAgent(): Promise<void> {
    const file = activeAgentFile(this.#o.agentStateDir);
    let pid: number | undefined;
    try {
      pid = z.object({ pid: z.number().int().positive() }).parse(JSON.parse(readFileSync(file, 'utf8'))).pid;
    } catch {
      return;
    }
    if (isAlive(pid) && looksLikeAgent(pid)) {
      this.#log.warn({ pid }, 'ending an agent left running by a server that stopped abruptly');
      await killTree(pid, this.#o.stopGraceMs);
    }
    rmSync(file, { force: true });
  }

  greet(send: SendToClient): void {
    if (this.#interrupted) {
      send('incomplete.codon', {
        ...this.#interrupted,
        message: 'this codon was interrupted when the server stopped; run codon.redo to retry it',
      });
    }
  }

  /** A sentinel's LLM cost: part of the codon's and the run's totals. */
  recordSentinelCost(codonId: string, usd: number): void {
    const runId = this.#o.state.state.currentRunId;
    if (!runId || usd <= 0 || !this.#o.state.state.runs[runId]?.codons[codonId]) return;
    this.#apply('CostsIncremented', { runId, codonId, amount: usd, source: 'sentinel' }).catch(
      (error: unknown) => this.#log.error({ err: error }, 'recording a sentinel cost failed'),
    );
  }

  /** Sentinel load and unload, recorded as SentinelStatesUpdated. */
  recordSentinelStates(
    codonId: string,
    sentinels: TransitionData<'SentinelStatesUpdated'>['sentinels'],
  ): void {
    const runId = this.#o.state.state.currentRunId;
    if (!runId || !this.#o.state.state.runs[runId]?.codons[codonId]) return;
    this.#apply('SentinelStatesUpdated', { runId, codonId, sentinels }).catch((error: unknown) =>
      this.#log.error({ err: error }, 'recording sentinel states failed'),
    );
  }

  handle(command: EngineCommand, context: CommandContext): void {
    // A read of the state: answered at once, even while a rollback holds the queue.
    if (command.type === 'checkpoint.list') {
      const state = this.#o.state.state;
      const runId = command.data.runId ?? state.currentRunId ?? '';
      if (!state.runs[runId]) {
        context.fail('UNKNOWN_RUN', `no run "${runId}"; runs: ${state.runOrder.join(', ') || '(none)'}`);
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
    this.#enqueue(() => this.#handle(command, context), context);
  }

  async stop(reason: string): Promise<void> {
    this.#stopping = true;
    await this.#queue;
    // Sentinels first: the codon's end then does not wait for their pending calls.
    await this.#hooks.shutdown();
    const active = this.#active;
    if (active) {
      this.#log.info({ codonId: active.codon.id, reason }, 'stopping the running codon for shutdown');
      this.#afterActive = 'idle';
      await active.run.stop('forceStop');
      await this.#finished;
    }
    const run = this.#o.state.state.currentRunId ? this.#o.state.state.runs[this.#runId()] : undefined;
    if (run?.status === 'running') {
      const lastId = run.order.at(-1);
      const last = lastId ? run.codons[lastId] : undefined;
      const endedAt = new Date().toISOString();
      if (last && last.status !== 'completed' && last.status !== 'skipped') {
        await this.#apply('RunFailed', {
          runId: run.runId,
          endedAt,
          reason: `codon ${last.codonId} ${last.status}; ${reason}`,
        });
      } else {
        await this.#apply('RunCompleted', { runId: run.runId, endedAt });
      }
    }
  }

  // --- commands ------------------------------------------------------------------------------------

  #enqueue(task: () => Promise<void>, context?: CommandContext): void {
    this.#queue = this.#queue.then(task).catch((error: unknown) => {
      this.#log.error({ err: error }, 'engine task failed');
      context?.fail('INTERNAL_ERROR', `the command failed: ${(error as Error).message}`);
    });
  }

  async #handle(command: EngineCommand, ctx: CommandContext): Promise<void> {
    if (this.#stopping) return ctx.fail('SHUTTING_DOWN', 'the server is shutting down; no new work is taken');
    switch (command.type) {
      case 'codon.start': {
        const codon = this.#codons.find((c) => c.id === command.data.codonId);
        if (!codon) {
          const ids = this.#codons.map((c) => c.id).join(', ') || '(none)';
          return ctx.fail(
            'UNKNOWN_CODON',
            `no codon "${command.data.codonId}" in plan "${this.#o.plan.name}"; its codons: ${ids}`,
          );
        }
        if (this.#busy(ctx)) return;
        return this.#startCodon(codon, command.data.skipPreCommands);
      }
      case 'codon.next': {
        if (this.#busy(ctx)) return;
        const next = this.#nextCodon();
        if (!next) {
          return ctx.fail(
            'NO_NEXT_CODON',
            `all ${this.#codons.length} codons have run; use codon.redo, or codon.start with a codon id, to run one again`,
          );
        }
        return this.#startCodon(next, false);
      }
      case 'codon.redo': {
        if (this.#busy(ctx)) return;
        const target = redoTarget(this.#o.state.state);
        const codon = target && this.#codons.find((c) => c.id === target.codonId);
        if (!codon)
          return ctx.fail(
            'NOTHING_TO_REDO',
            'no codon has run yet; start one with codon.next or codon.start',
          );
        return this.#startCodon(codon, false);
      }
      case 'codon.skip':
      case 'codon.forceStop': {
        const active = this.#active;
        if (!active) {
          return ctx.fail(
            'NO_CODON_RUNNING',
            `no codon is running, so there is nothing to ${command.type === 'codon.skip' ? 'skip' : 'stop'}; codon.next starts the next one`,
          );
        }
        if (command.type === 'codon.skip') {
          this.#afterActive = 'next';
          await this.#publish('info', { message: `skipping codon ${active.codon.id}` });
          await active.run.stop('skip');
        } else {
          this.#afterActive = 'idle';
          await this.#publish('info', {
            message: `force-stopping codon ${active.codon.id}: ${command.data.reason}`,
          });
          await active.run.stop('forceStop');
        }
        return;
      }
      case 'checkpoint.list':
        return;
      case 'rollback.toCheckpoint':
      case 'rollback.toCodon':
      case 'rollback.toLastSuccess':
        return this.#rollbackCommand(command, ctx);
    }
  }

  #busy(ctx: CommandContext): boolean {
    if (!this.#active) return false;
    ctx.fail(
      'CODON_RUNNING',
      `codon ${this.#active.codon.id} is running; wait for codon.completed, or send codon.skip or codon.forceStop first`,
    );
    return true;
  }

  #nextCodon(): RuntimeCodon | undefined {
    const run = this.#o.state.state.runs[this.#runId()];
    return run ? this.#codons[run.nextCodonIndex] : undefined;
  }

  // --- codon lifecycle --------------------------------------------------------------------------------

  #finished: Promise<void> = Promise.resolve();

  async #startCodon(codon: RuntimeCodon, skipPreCommands: boolean): Promise<void> {
    const runId = this.#runId();
    const previous = codon.continuation === 'continue-previous' ? this.#previousCodonOf(codon) : undefined;
    const sessionId = randomUUID();
    const startTime = new Date().toISOString();
    if (this.#interrupted?.codonId === codon.id) this.#interrupted = undefined;
    this.#afterActive = 'auto';
    await this.#apply('CodonStarted', {
      runId,
      codonId: codon.id,
      codonName: codon.name,
      codonIndex: codon.index,
      sessionId,
      startTime,
      ...(previous?.sessionId ? { previousSessionId: previous.sessionId } : {}),
    });
    await this.#publish('codon.started', {
      codonId: codon.id,
      codonName: codon.name,
      ...(codon.description ? { codonDescription: codon.description } : {}),
      sessionId,
      ...(previous?.sessionId ? { previousSessionId: previous.sessionId } : {}),
      startTime,
      ...(codon.promptMetadata ? { promptMetadata: codon.promptMetadata } : {}),
    });
    const rigFailure = await this.#steps.prepareRig(codon, runId, skipPreCommands);
    if (rigFailure) {
      await this.#endWithoutAgent(codon, runId, 'preparing', rigFailure, 'RIG_SETUP_FAILED');
      return;
    }
    const refused = await this.#hooks.beforeAgent(codon, runId);
    if (refused) {
      await this.#endWithoutAgent(codon, runId, 'preparing', refused, 'CODON_FAILED');
      return;
    }
    await this.#apply('CodonTransitioned', {
      runId,
      codonId: codon.id,
      from: 'preparing',
      to: 'running',
      at: new Date().toISOString(),
    });
    const run = new CodonRun({
      codonId: codon.id,
      adapter: this.#o.adapters[codon.agent],
      start: {
        prompt: codon.prompt,
        model: codon.model ?? this.#o.defaultModel,
        cwd: this.#o.agentRoot,
        env: codon.env,
        providerBaseUrl: this.#o.providerBaseUrl(),
        stateDir: this.#o.agentStateDir,
        ...(previous?.agentSessionId ? { resumeSessionId: previous.agentSessionId } : {}),
      },
      timeoutMs: codon.timeoutMs,
      stopGraceMs: this.#o.stopGraceMs,
      maxResultChars: this.#o.maxResultChars,
      logger: this.#log,
      onOutput: (output) => this.#onOutput(runId, codon.id, output),
    });
    const snapshotTimer = setInterval(() => void this.#snapshot(), this.#o.snapshotIntervalMs);
    snapshotTimer.unref();
    this.#active = { codon, run, sessionId, snapshotTimer };
    await this.#snapshot();
    this.#finished = run.outcome.then((outcome) => this.#enqueueFinish(codon, outcome));
  }

  get #hooks(): CodonHooks {
    return this.#o.hooks ?? noHooks;
  }

  /** Fails a codon whose agent never started (a sentinel or rig setup refused it). */
  async #endWithoutAgent(
    codon: RuntimeCodon,
    runId: string,
    from: 'preparing',
    failureReason: FailureReason,
    code: ErrorCode,
  ): Promise<void> {
    // No process ran: exit status `error` with code 1, by convention.
    const exitStatus = { type: 'error' as const, code: 1 };
    await this.#steps.checkpoint(codon, runId, 'error', 'failed');
    await this.#apply('CodonTransitioned', {
      runId,
      codonId: codon.id,
      from,
      to: 'failed',
      at: new Date().toISOString(),
      exitStatus,
      failureReason,
      duration: 0,
    });
    await this.#publish('codon.completed', {
      codonId: codon.id,
      success: false,
      cost: 0,
      duration: 0,
      exitStatus,
      failureReason,
    });
    await this.#publish('error', {
      message: `codon ${codon.id} failed before its agent started: ${failureReason.message ?? failureReason.type}`,
      codon: codon.id,
      fatal: false,
      severity: 'codon',
      code,
      context: failureReason.type,
    });
    await this.#snapshot();
    await this.#idle(this.#nextCodon() ? 'codon-completed' : 'all-codons-completed');
  }

  #enqueueFinish(codon: RuntimeCodon, outcome: Awaited<CodonRun['outcome']>): Promise<void> {
    // Finishing goes through the queue too, so it never interleaves with a command.
    return new Promise((resolve) => {
      this.#enqueue(async () => {
        try {
          await this.#finishCodon(codon, outcome);
        } finally {
          resolve();
        }
      });
    });
  }

  #agentSessionId: string | undefined;

  #onOutput(runId: string, codonId: string, output: MappedOutput): void {
    const fail = (error: unknown) => this.#log.error({ err: error }, 'recording agent output failed');
    switch (output.kind) {
      case 'event':
        this.#publish(output.event.type, output.event.data).catch(fail);
        return;
      case 'cost':
        if (output.amount > 0)
          this.#apply('CostsIncremented', { runId, codonId, amount: output.amount, source: 'agent' }).catch(
            fail,
          );
        return;
      case 'messageCount':
        this.#apply('AssistantMessageCountUpdated', { runId, codonId, count: output.count }).catch(fail);
        return;
      case 'session':
        this.#agentSessionId = output.agentSessionId;
        return;
      case 'result':
        if (output.finalCost !== undefined)
          this.#apply('CostsUpdated', { runId, codonId, cost: output.finalCost }).catch(fail);
        return;
    }
  }

  async #finishCodon(codon: RuntimeCodon, outcome: Awaited<CodonRun['outcome']>): Promise<void> {
    const active = this.#active;
    if (active) clearInterval(active.snapshotTimer);
    const runId = this.#runId();
    const execution = this.#o.state.state.runs[runId]?.codons[codon.id];
    const duration = active ? Date.now() - active.run.startedAt : 0;
    const classified = classifyOutcome(outcome);
    let { success, failureReason } = classified;
    let to: CodonStatus =
      outcome.stoppedBy === 'skip'
        ? 'skipped'
        : outcome.stoppedBy === 'forceStop'
          ? 'stopped'
          : success
            ? 'completed'
            : 'failed';
    const archived = success ? await this.#steps.archive(codon, runId) : undefined;
    const checkpointType: CheckpointType =
      to === 'completed' ? 'completed' : to === 'skipped' ? 'skipped' : 'error';
    const checkpoint = await this.#steps.checkpoint(codon, runId, checkpointType, to);
    if (!checkpoint && success) {
      // A step that cannot be undone is not a clean success.
      success = false;
      to = 'failed';
      failureReason = {
        type: 'unknown',
        retriable: true,
        message: 'the completed checkpoint could not be written',
      };
    }
    if (archived && checkpoint) await this.#o.archive.add({ ...archived, checkpointSha: checkpoint.sha });
    await this.#apply('CodonTransitioned', {
      runId,
      codonId: codon.id,
      from: 'running',
      to,
      at: new Date().toISOString(),
      exitStatus: outcome.exit,
      duration,
      ...(failureReason ? { failureReason } : {}),
      ...(this.#agentSessionId ? { agentSessionId: this.#agentSessionId } : {}),
    });
    this.#agentSessionId = undefined;
    await this.#hooks.afterAgent(codon, runId);
    const spent = this.#o.state.state.runs[runId]?.codons[codon.id];
    if (spent)
      await this.#apply('CodonFinalCostSet', {
        runId,
        codonId: codon.id,
        cost: spent.agentCost + spent.sentinelCost,
      });
    const cost = this.#o.state.state.runs[runId]?.codons[codon.id]?.cost ?? execution?.cost ?? 0;
    await this.#publish('codon.completed', {
      codonId: codon.id,
      success,
      cost,
      duration,
      exitStatus: outcome.exit,
      ...(failureReason ? { failureReason } : {}),
    });
    if (!success && to !== 'skipped') {
      await this.#publish('error', {
        message: `codon ${codon.id} ${to === 'stopped' ? 'was stopped' : 'failed'}: ${failureReason?.message ?? 'no reason given'}`,
        codon: codon.id,
        fatal: false,
        severity: 'codon',
        code: failureReason?.type === 'timeout' ? 'CODON_TIMEOUT' : 'CODON_FAILED',
        context: failureReason?.type,
      });
    }
    this.#active = undefined;
    await this.#snapshot();
    const after = this.#afterActive;
    const next = this.#nextCodon();
    if (this.#stopping) return;
    if (next && (after === 'next' || (after === 'auto' && success && this.#o.autostart))) {
      await this.#startCodon(next, false);
      return;
    }
    await this.#idle(next ? 'codon-completed' : 'all-codons-completed');
  }

  #previousCodonOf(codon: RuntimeCodon) {
    const run = this.#o.state.state.runs[this.#runId()];
    const before = this.#codons[codon.index - 1];
    if (!before) return undefined;
    for (const runId of [...this.#o.state.state.runOrder].reverse()) {
      const c = this.#o.state.state.runs[runId]?.codons[before.id];
      if (c) return c;
    }
    return run?.codons[before.id];
  }

  /** Plan index a run goes on with after a checkpoint: past a codon that ended well, else that codon again. */
  #indexAfter(target: CheckpointRecord): number {
    if (target.initial) return this.#o.state.state.runs[target.runId]?.startCodonIndex ?? 0;
    const index = this.#codons.findIndex((c) => c.id === target.codonId);
    if (index < 0) return 0;
    return target.checkpointType === 'completed' || target.checkpointType === 'skipped' ? index + 1 : index;
  }

  // --- rollback ---------------------------------------------------------------------------------------------

  #rollbackDeps() {
    return {
      store: this.#o.checkpoints.store,
      archive: this.#o.archive,
      rigDirs: this.#o.rigDirs,
      agentRoot: this.#o.agentRoot,
      publish: <T extends EventType>(type: T, data: EventInput<T>) => this.#publish(type, data),
    };
  }

  async #rollbackCommand(
    command: Extract<
      EngineCommand,
      { type: 'rollback.toCheckpoint' | 'rollback.toCodon' | 'rollback.toLastSuccess' }
    >,
    ctx: CommandContext,
  ): Promise<void> {
    if (this.#active) {
      return ctx.fail(
        'CODON_RUNNING',
        `codon ${this.#active.codon.id} is running; stop it with codon.forceStop (or codon.skip) first, then roll back`,
      );
    }
    const fromRun = this.#runId();
    const lineage = await this.#o.checkpoints.lineage(fromRun);
    if (!lineage.ok) return ctx.fail(lineage.code, lineage.message);
    let target: Outcome<CheckpointRecord>;
    if (command.type === 'rollback.toCheckpoint')
      target = await this.#o.checkpoints.bySha(command.data.checkpointSha);
    else if (command.type === 'rollback.toCodon') {
      if (
        !this.#codons.some((c) => c.id === command.data.codonId) &&
        !lineage.value.some((c) => c.codonId === command.data.codonId)
      ) {
        return ctx.fail('UNKNOWN_CODON', `no codon "${command.data.codonId}" in plan "${this.#o.plan.name}"`);
      }
      target = this.#o.checkpoints.byCodon(lineage.value, command.data.codonId, command.data.checkpointType);
    } else target = this.#o.checkpoints.lastSuccess(lineage.value);
    if (!target.ok) return ctx.fail(target.code, target.message);

    this.#rollingBack = true;
    try {
      await this.#snapshot();
      const run = this.#o.state.state.runs[fromRun];
      const done = await performRollback(this.#rollbackDeps(), {
        target: target.value,
        lineage: lineage.value,
        fromRun,
        fromCodon: run?.order.at(-1) ?? '',
        requested: command.type,
      });
      if (!done.ok) {
        await this.#reportError(
          'CHECKPOINT_FAILED',
          `rollback to ${target.value.sha.slice(0, 12)} failed: ${done.message}`,
          'operation',
        );
        ctx.fail('CHECKPOINT_FAILED', `rollback failed: ${done.message}`);
        return;
      }
      // The old run ends; a new run (and branch) goes on from the checkpoint, so nothing is lost.
      await this.#apply('RunCompleted', { runId: fromRun, endedAt: new Date().toISOString() });
      const toRun = this.#o.newRunId();
      this.#o.bus.setRunId(toRun);
      await this.#apply('RunStarted', {
        runId: toRun,
        startedAt: new Date().toISOString(),
        reason: 'rollback',
        nextCodonIndex: this.#indexAfter(target.value),
        fromRunId: fromRun,
        fromCheckpoint: target.value.sha,
      });
      await this.#steps.startCheckpointRun(toRun, target.value.sha);
      await this.#rollbackCompleted(fromRun, toRun, target.value, command.data.autoRestart);
    } finally {
      this.#rollingBack = false;
    }
  }

  /** rollback.completed, a snapshot, then the next codon (autoRestart) or idle. */
  async #rollbackCompleted(
    fromRun: string,
    toRun: string,
    target: CheckpointRecord,
    autoRestart: boolean,
  ): Promise<void> {
    await this.#publish('rollback.completed', {
      fromRun,
      toRun,
      checkpoint: target.sha,
      codonId: target.codonId,
      codonName: target.codonName,
      checkpointType: target.initial ? 'initial' : target.checkpointType,
      autoRestart,
    });
    this.#rollingBack = false;
    await this.#snapshot();
    const next = this.#nextCodon();
    if (autoRestart && next) {
      this.#enqueue(() => this.#startCodon(next, false));
      return;
    }
    await this.#idle(next ? 'codon-completed' : 'all-codons-completed');
  }

  // --- publishing ---------------------------------------------------------------------------------------

  async #idle(reason: 'startup' | 'codon-completed' | 'all-codons-completed'): Promise<void> {
    const next = this.#nextCodon();
    const message =
      reason === 'all-codons-completed'
        ? `all ${this.#codons.length} codons of plan "${this.#o.plan.name}" have run`
        : next
          ? `idle; codon.next starts ${next.id}`
          : `idle; plan "${this.#o.plan.name}" has no codon left to start`;
    await this.#publish('server.idle', { reason, message });
  }

  #snapshot(): Promise<unknown> {
    return this.#publish(
      'state.snapshot',
      buildSnapshot(this.#o.state.state, {
        fileTree: this.#o.fileTree(),
        isRollingBack: this.rollingBack,
        now: Date.now(),
      }),
    ).catch((error: unknown) => this.#log.error({ err: error }, 'snapshot failed'));
  }

  #publish<T extends EventType>(type: T, data: EventInput<T>): Promise<unknown> {
    return this.#recorder.publish(type, data);
  }

  #apply<T extends StateTransitionType>(type: T, data: TransitionData<T>): Promise<unknown> {
    return this.#recorder.apply(type, data);
  }

  #reportError(code: string, message: string, severity: ErrorSeverity, codon?: string): Promise<void> {
    return this.#recorder.reportError(code, message, severity, codon);
  }
}

/** Guards against a pid reused by an unrelated process since the crash. */
function looksLikeAgent(pid: number): boolean {
  try {
    const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    return /ribosome|claude/.test(cmdline);
  } catch {
    return false;
  }
}
