import { randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import type { Logger } from 'pino';
import { z } from 'zod';
import type { AgentAdapter } from '../agents/agent-adapter.ts';
import { isAlive, killTree } from '../agents/process-tree.ts';
import type { EventBus } from '../journal/event-bus.ts';
import type { RuntimeCodon } from '../plan/index.ts';
import type { LoadedPlan } from '../plan/loaded-plan.ts';
import type {
  EventInput,
  EventType,
  FailureReason,
  FileNode,
  StateTransitionType,
} from '../protocol/index.ts';
import { summary } from '../state/reducer.ts';
import type { StateStore } from '../state/state-store.ts';
import type { TransitionData } from '../state/transitions.ts';
import { type CodonHooks, noHooks } from './codon-hooks.ts';
import { activeAgentFile, CodonRun } from './codon-run.ts';
import type { CommandContext, Engine, EngineCommand, SendToClient } from './engine.ts';
import { classifyOutcome } from './failure.ts';
import { redoTarget, resumeIndex } from './next-codon.ts';
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

  constructor(options: OrchestratorOptions) {
    this.#o = options;
    mkdirSync(options.agentStateDir, { recursive: true });
    this.#log = options.logger.child({ component: 'engine' });
  }

  get rollingBack(): boolean {
    return false;
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
    const crashed = state.state.runs[previous?.runId ?? '']?.status === 'crashed';
    const runId = this.#o.bus.runId;
    await this.#apply('RunStarted', {
      runId,
      startedAt: now,
      reason: crashed ? 'recovery' : 'start',
      nextCodonIndex: resumeIndex(state.state.runs[previous?.runId ?? '']),
      ...(previous ? { fromRunId: previous.runId } : {}),
    });
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

  handle(command: EngineCommand, context: CommandContext): void {
    this.#enqueue(() => this.#handle(command, context), context);
  }

  async stop(reason: string): Promise<void> {
    this.#stopping = true;
    await this.#queue;
    const active = this.#active;
    if (active) {
      this.#log.info({ codonId: active.codon.id, reason }, 'stopping the running codon for shutdown');
      this.#afterActive = 'idle';
      await active.run.stop('forceStop');
      await this.#finished;
    }
    await this.#hooks.shutdown();
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
        ctx.reply('checkpoint.list', {
          runId: command.data.runId ?? this.#runId(),
          checkpoints: [],
          currentBranch: '',
        });
        return;
      case 'rollback.toCheckpoint':
      case 'rollback.toCodon':
      case 'rollback.toLastSuccess':
        ctx.fail('NOT_SUPPORTED', 'rollback is not available in this build');
        return;
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

  async #startCodon(codon: RuntimeCodon, _skipPreCommands: boolean): Promise<void> {
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
    const refused = await this.#hooks.beforeAgent(codon, runId);
    if (refused) {
      await this.#endWithoutAgent(codon, runId, 'preparing', refused);
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
  ): Promise<void> {
    // No process ran: exit status `error` with code 1, by convention.
    const exitStatus = { type: 'error' as const, code: 1 };
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
      code: 'CODON_FAILED',
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
          this.#apply('CodonFinalCostSet', { runId, codonId, cost: output.finalCost }).catch(fail);
        return;
    }
  }

  async #finishCodon(codon: RuntimeCodon, outcome: Awaited<CodonRun['outcome']>): Promise<void> {
    const active = this.#active;
    if (active) clearInterval(active.snapshotTimer);
    const runId = this.#runId();
    const execution = this.#o.state.state.runs[runId]?.codons[codon.id];
    const duration = active ? Date.now() - active.run.startedAt : 0;
    const { success, failureReason } = classifyOutcome(outcome);
    const to =
      outcome.stoppedBy === 'skip'
        ? 'skipped'
        : outcome.stoppedBy === 'forceStop'
          ? 'stopped'
          : success
            ? 'completed'
            : 'failed';
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
    return this.#o.bus.publish(type, data);
  }

  /** Records a transition (durable), then announces it as state.transition. */
  #apply<T extends StateTransitionType>(type: T, data: TransitionData<T>): Promise<unknown> {
    const transition = this.#o.state.apply(type, data);
    const d = transition.data as { runId?: string; codonId?: string };
    return this.#publish('state.transition', {
      transitionType: type,
      ...(d.runId ? { runId: d.runId } : {}),
      ...(d.codonId ? { codonId: d.codonId } : {}),
      transition: { type, data: transition.data as Record<string, unknown> },
      resultingState: summary(this.#o.state.state),
    });
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
