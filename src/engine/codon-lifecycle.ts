import type { FailureReason } from '../core/protocol/index.ts';
import { codonOf, runOf } from '../execution/state/reducer.ts';
import type { RuntimeCodon } from '../plan/index.ts';
import type { EffectiveSandbox } from '../plan/sandbox-resolve.ts';
import type { CommandWrap } from '../platform/processes/run-command.ts';
import { sandboxedCommand } from '../platform/sandbox/index.ts';
import { describeError } from '../platform/storage/probe.ts';
import { type AgentStart, gateRunner, recordOutput, startAgent } from './codon-agent.ts';
import { type EndWithoutAgent, fingerprint, recordAgentEnd, recordEndWithoutAgent } from './codon-end.ts';
import {
  activeCodon,
  advance,
  type Gates,
  IDLE,
  messageRefusal,
  type Phase,
  type PhaseEvent,
  type Started,
  type Stop,
  stopKindOf,
  stopRefusal,
} from './codon-phase.ts';
import type { CodonRun } from './codon-run.ts';
import { previousCodonOf, recordStart } from './codon-start.ts';
import type { Fingerprint } from './data-fingerprint.ts';
import type { AttemptInfo, LifecycleOptions } from './lifecycle-options.ts';
import { DEFAULT_MESSAGE_QUEUE, queueRefusal } from './message-queue.ts';
import { type CodonOutcome, type StopKind, stoppedMessage } from './outcome/failure.ts';
import { type CodonSandbox, openCodonSandbox } from './sandbox/codon-sandbox.ts';
import { withMcpHosts } from './sandbox/mcp-hosts.ts';
import type { MappedOutput } from './stream-mapper.ts';
import { throughGates } from './verify/verify-rounds.ts';
import type { EndStatus } from './what-next.ts';

export type { AttemptInfo, LifecycleOptions } from './lifecycle-options.ts';

/**
 * One codon from its start to its end, recorded: codon.started, rig setup, the sentinels' go-ahead,
 * the agent, then the end checkpoint, the archive (after a success), the final cost and
 * codon.completed. It holds the one running agent; what runs after a codon is the orchestrator's
 * decision, not this class's. Where the codon is, is one Phase (codon-phase.ts), changed only by
 * `advance`.
 */
export class CodonLifecycle {
  readonly #o: LifecycleOptions;
  #phase: Phase = IDLE;
  /** Publishes a state.snapshot now and then while the codon's agent phases last. */
  #snapshots: NodeJS.Timeout | undefined;
  /** The active codon's open sandbox (its network gate), from before its agent until its outcome. */
  #sandbox: CodonSandbox | undefined;

  constructor(options: LifecycleOptions) {
    this.#o = options;
  }

  /** The codon that is preparing or whose agent runs, if any. */
  get active(): RuntimeCodon | undefined {
    return activeCodon(this.#phase);
  }

  /** True while the active codon is before its agent (rig setup): a stop then cannot wait in the queue. */
  get preparing(): boolean {
    return this.#phase.phase === 'preparing';
  }

  /** How the active codon is being stopped, if it is. */
  get stopping(): StopKind | undefined {
    return stopKindOf(this.#phase);
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
    const previous = previousCodonOf(this.#o.state(), codon);
    // Walked while the start is recorded: nothing writes to the data directory meanwhile.
    const walked = fingerprint(this.#o.dataDir);
    const confined = this.#o.sandbox?.(codon);
    await recordStart(this.#o.recorder, this.#o.adapters, codon, runId, previous, attempt, !!confined);
    const abort = new AbortController();
    // Preparing from the moment it started: a stop or a crash check in between must see the codon.
    this.#advance({ type: 'prepare', codon, abort });
    let dataBefore: Fingerprint | undefined;
    const fail = (end: Omit<EndWithoutAgent, 'dataBefore'>) =>
      recordEndWithoutAgent(this.#o, codon, runId, { ...end, dataBefore });
    let refused: FailureReason | undefined;
    let stop: Stop | undefined;
    try {
      dataBefore = await walked;
      // Opened before the rig: `sandbox.rig` runs its commands inside it too.
      if (confined && !this.stopping) {
        const opened = await this.#openSandbox(codon, confined);
        if (typeof opened === 'string')
          return await fail({
            failureReason: { type: 'unknown', retriable: false, message: opened },
            code: 'CODON_FAILED',
          });
      }
      const rigWrap = confined?.rig ? this.#wrap() : undefined;
      const rig = await this.#o.steps.prepareRig(codon, runId, skipPreCommands, abort.signal, rigWrap);
      if (rig && rig !== 'aborted') {
        await this.#closeSandbox();
        return await fail({ failureReason: rig, code: 'RIG_SETUP_FAILED' });
      }
      if (!this.stopping) refused = await this.#o.hooks.beforeAgent(codon, runId);
    } finally {
      stop = this.#phase.phase === 'preparing' ? this.#phase.stop : undefined;
      this.#advance({ type: 'prepared' });
    }
    if (stop) {
      await this.#closeSandbox();
      return fail(stoppedBeforeAgent(stop));
    }
    if (refused) {
      await this.#closeSandbox();
      return fail({ failureReason: refused, code: 'CODON_FAILED' });
    }
    await this.#o.recorder.apply('CodonTransitioned', {
      runId,
      codonId: codon.id,
      from: 'preparing',
      to: 'running',
      at: new Date().toISOString(),
    });
    let run: CodonRun;
    try {
      run = this.#startRound(codon, runId, {
        resumeSessionId: previous?.agentSessionId,
        model: attempt?.model,
      });
    } catch (error) {
      await this.#closeSandbox();
      // The agent could not be started (its state directory cannot be made on a full disk, ...).
      const message = `the agent could not be started: ${describeError(error, this.#o.agentStateDir)}`;
      this.#o.logger.error({ err: error, codonId: codon.id }, message);
      return fail({
        failureReason: { type: 'unknown', retriable: false, message },
        code: 'CODON_FAILED',
        from: 'running',
      });
    }
    this.#snapshots = setInterval(() => void this.#o.snapshot(), this.#o.snapshotIntervalMs);
    this.#snapshots.unref();
    const started: Started = {
      codon,
      startedAt: run.startedAt,
      ...(attempt?.model ? { model: attempt.model } : {}),
      ...(dataBefore === undefined ? {} : { dataBefore }),
    };
    this.#advance({ type: 'agent-started', started, run });
    await this.#o.snapshot();
    void this.#agentThenGates(codon, runId, run).then(async (outcome) => {
      // Before the end is recorded: the refusals the gate still held are journaled within the codon.
      await this.#closeSandbox();
      this.#advance({ type: 'settled' });
      onExit(outcome);
    });
    return 'running';
  }

  /** The agent's outcome, through the codon's verification gates and feedback rounds (src/engine/verify). */
  #agentThenGates(codon: RuntimeCodon, runId: string, first: CodonRun): Promise<CodonOutcome> {
    const exited = (run: CodonRun) =>
      run.outcome.then((outcome) => {
        this.#advance({ type: 'agent-exited', run });
        return outcome;
      });
    const runGates = gateRunner(this.#o, codon, this.#o.sandbox?.(codon)?.gates ? this.#wrap() : undefined);
    const fail = (error: unknown) => this.#o.logger.error({ err: error }, 'recording a gate event failed');
    return throughGates(exited(first), {
      codonId: codon.id,
      gates: codon.verify.length,
      onVerifyFailure: codon.onVerifyFailure,
      stopped: () => this.#stop(),
      runGates: (round) => {
        const abort = new AbortController();
        const done = runGates(round, abort.signal).finally(() =>
          this.#advance({ type: 'gates-ended', gates }),
        );
        const gates: Gates = { abort, done };
        this.#advance({ type: 'gates-started', gates });
        return done;
      },
      resume: (prompt) => {
        // The round's agent reports its own totals from 0: they add to what the codon spent so far.
        const record = codonOf(runOf(this.#o.state(), runId), codon.id);
        const spentBefore = { cost: record?.agentCost ?? 0, messages: record?.assistantMessageCount ?? 0 };
        const phase = this.#phase;
        const started = phase.phase === 'agent-ended' ? phase.started : undefined;
        let run: CodonRun;
        try {
          run = this.#startRound(codon, runId, {
            resumeSessionId: started?.agentSessionId,
            model: started?.model,
            prompt,
            costBefore: spentBefore.cost,
          });
        } catch (error) {
          const why = describeError(error, this.#o.agentStateDir);
          return Promise.resolve({ exit: { type: 'error', code: 1 }, timedOut: false, startFailure: why });
        }
        this.#advance({ type: 'round-started', run, spentBefore });
        return exited(run);
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

  /** Starts a round of the codon's agent, its outputs recorded against the round running when they come. */
  #startRound(codon: RuntimeCodon, runId: string, round: AgentStart): CodonRun {
    const sandbox = this.#sandbox?.launch;
    return startAgent(this.#o, codon, { ...round, ...(sandbox ? { sandbox } : {}) }, (output) =>
      this.#onOutput(runId, codon.id, output),
    );
  }

  /**
   * Opens the codon's sandbox (its network gate to the agent's LLM route); why not, in words, when
   * it cannot be opened.
   */
  async #openSandbox(codon: RuntimeCodon, sandbox: EffectiveSandbox): Promise<CodonSandbox | string> {
    const fail = (error: unknown) =>
      this.#o.logger.error({ err: error }, 'recording a sandbox refusal failed');
    try {
      this.#sandbox = await openCodonSandbox({
        codonId: codon.id,
        // Its remote MCP servers are reached through the gate too.
        sandbox: withMcpHosts(sandbox, codon.mcpServers),
        agentRoot: this.#o.agentRoot,
        ...(this.#o.dataDir ? { dataDir: this.#o.dataDir } : {}),
        executionDir: this.#o.executionDir,
        rigArchive: this.#o.rigArchive,
        route: this.#o.provider(codon).baseUrl,
        publish: (event) => void this.#o.recorder.publish('sandbox.denied', event).catch(fail),
        logger: this.#o.logger,
      });
      return this.#sandbox;
    } catch (error) {
      const message = `the sandbox could not be opened: ${(error as Error).message ?? String(error)}`;
      this.#o.logger.error({ err: error, codonId: codon.id }, message);
      return message;
    }
  }

  /**
   * Runs a command (a rig step, a gate) inside the active codon's sandbox, as its agent runs; as it is
   * when none is open.
   */
  #wrap(): CommandWrap {
    return (line) => {
      const launch = this.#sandbox?.launch;
      return launch ? sandboxedCommand(line, launch) : line;
    };
  }

  /** Ends the active codon's sandbox (its network gate), if it has one open. */
  async #closeSandbox(): Promise<void> {
    const sandbox = this.#sandbox;
    this.#sandbox = undefined;
    await sandbox
      ?.close()
      .catch((error: unknown) => this.#o.logger.error({ err: error }, "closing the codon's sandbox failed"));
  }

  #onOutput(runId: string, codonId: string, output: MappedOutput): void {
    const phase = this.#phase;
    // What the codon's earlier feedback rounds spent (zero for the agent's first run).
    const spentBefore = phase.phase === 'running' ? phase.spentBefore : { cost: 0, messages: 0 };
    recordOutput(this.#o, runId, codonId, output, spentBefore, (agentSessionId) => {
      if (activeCodon(this.#phase)?.id === codonId) this.#advance({ type: 'session', agentSessionId });
    });
  }

  /**
   * Ends the active codon for a client (skip, forceStop), for shutdown or for its budget: its rig
   * setup command or its agent, whole process trees. The stop is claimed at once (a second one is
   * refused: undefined); the promise resolves once the processes are gone.
   */
  stopActive(by: StopKind, reason?: string): Promise<void> | undefined {
    const from = this.#phase;
    const to = advance(from, { type: 'stop', stop: { by, ...(reason ? { reason } : {}) } });
    if (!to) return undefined;
    this.#enter(to);
    switch (from.phase) {
      case 'preparing':
        from.abort.abort();
        return Promise.resolve();
      case 'running':
        return from.run.stop(by, reason);
      case 'agent-ended':
        // A gate runs: its command ends (and no feedback round starts after it).
        if (!from.gates) return Promise.resolve();
        from.gates.abort.abort();
        return from.gates.done.then(() => {});
      default:
        return Promise.resolve();
    }
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
    const phase = this.#phase;
    if (phase.phase === 'running' && !phase.stop) {
      const { id } = phase.started.codon;
      const limits = this.#o.messageQueue ?? DEFAULT_MESSAGE_QUEUE;
      const full = queueRefusal(id, phase.run.backlog, Buffer.byteLength(text), limits);
      if (full) return { ok: false, code: 'MESSAGE_QUEUE_FULL', message: full };
      const delivery = phase.run.send(text);
      if (delivery) return { ok: true, codonId: id, delivery };
    }
    return { ok: false, message: messageRefusal(phase) };
  }

  /**
   * Why a sentinel action cannot stop `codonId` now, or undefined when it can: it is the active
   * codon, its agent (or a gate, or a feedback round) still runs, and no stop was asked for yet.
   */
  stopRefusal(codonId: string): string | undefined {
    return stopRefusal(this.#phase, codonId);
  }

  /** Records the end of the codon whose agent exited; returns how it ended. */
  async finish(codon: RuntimeCodon, runId: string, outcome: CodonOutcome): Promise<EndStatus> {
    const phase = this.#phase;
    const started =
      phase.phase !== 'idle' && phase.phase !== 'preparing' && phase.started.codon.id === codon.id
        ? phase.started
        : undefined;
    if (started) {
      clearInterval(this.#snapshots);
      this.#snapshots = undefined;
    }
    if (this.#o.recorder.halted) {
      // The storage failed and the server is stopping: nothing of the end can be recorded (not even
      // a checkpoint worth its git work); the next server finds the codon interrupted and recovers.
      if (started) this.#advance({ type: 'finished' });
      return 'stopped';
    }
    const to = await recordAgentEnd(this.#o, codon, runId, outcome, started);
    if (started) this.#advance({ type: 'finished' });
    await this.#o.snapshot();
    return to;
  }

  /** The stop asked for the active codon, if one was. */
  #stop(): Stop | undefined {
    return this.#phase.phase === 'idle' ? undefined : this.#phase.stop;
  }

  /** Changes the phase by `event`; one that does not apply is a bug, logged and otherwise ignored. */
  #advance(event: PhaseEvent): void {
    const to = advance(this.#phase, event);
    if (to) this.#enter(to);
    else
      this.#o.logger.error(
        { codonId: activeCodon(this.#phase)?.id, phase: this.#phase.phase, event: event.type },
        'codon lifecycle: an event that does not apply in this phase was ignored',
      );
  }

  #enter(to: Phase): void {
    const from = this.#phase;
    this.#phase = to;
    if (from.phase !== to.phase)
      this.#o.logger.debug(
        { codonId: activeCodon(to)?.id ?? activeCodon(from)?.id, from: from.phase, to: to.phase },
        'codon phase',
      );
  }
}

/** How a codon stopped before its agent started ends (a budget's stop fails it: BUDGET_EXCEEDED). */
function stoppedBeforeAgent(stop: Stop): Omit<EndWithoutAgent, 'dataBefore'> {
  const message = `${stoppedMessage(stop.by, stop.reason)} (before its agent started)`;
  if (stop.by === 'budget')
    return { failureReason: { type: 'budget', retriable: false, message }, code: 'BUDGET_EXCEEDED' };
  return {
    failureReason: { type: 'unknown', retriable: false, message },
    code: 'CODON_FAILED',
    to: stop.by === 'skip' ? 'skipped' : 'stopped',
  };
}
