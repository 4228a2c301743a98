import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { AgentAdapter, AgentRun, AgentStart, MessageBacklog } from '../agents/agent-adapter.ts';
import { notStarted } from '../agents/spawn-agent.ts';
import { type AgentPid, AgentPidsFile } from './agent-pids.ts';
import type { CodonOutcome, StopKind } from './outcome/failure.ts';
import { StallWatch } from './retries/stall-watch.ts';
import { type MappedOutput, StreamMapper } from './stream-mapper.ts';
import { priceSpend } from './unreported-spend.ts';

export type CodonRunOptions = {
  codonId: string;
  adapter: AgentAdapter;
  /** How to start the agent; the run adds its own mark. */
  start: Omit<AgentStart, 'mark'>;
  timeoutMs: number;
  /** No output for this long stops the agent as stalled (docs/unattended.md#stall-detection). */
  stallTimeoutMs: number;
  stopGraceMs: number;
  maxResultChars: number;
  logger: Logger;
  /** Every mapped output, in stream order. */
  onOutput: (output: MappedOutput) => void;
  /** [0] What the codon's agent spent before this run (its earlier feedback rounds). */
  costBefore?: number;
};

/**
 * One agent process working on one codon: starts it, maps its stream as it arrives, enforces the
 * timeout, and ends it (with its whole process tree, and whatever carries the run's mark) when
 * asked, and when it exits. `outcome` resolves once the process has exited, its output has been
 * read to the end and what it left running is gone. An agent that cannot be started is an outcome
 * too (`startFailure`), never an exception.
 */
export class CodonRun {
  readonly outcome: Promise<CodonOutcome>;
  readonly pid: number;
  readonly startedAt = Date.now();
  #stoppedBy: CodonOutcome['stoppedBy'];
  #stopReason: string | undefined;
  #timedOut = false;
  #stalled = false;
  readonly #stop: (graceMs: number) => Promise<void>;
  readonly #graceMs: number;
  readonly #agent: AgentRun;

  constructor(options: CodonRunOptions) {
    const log = options.logger.child({ codonId: options.codonId });
    // Unique to this run, so ending what carries it never touches another codon's or server's processes.
    const mark = randomUUID();
    let agent: AgentRun;
    try {
      agent = options.adapter.start({ ...options.start, mark });
    } catch (error) {
      agent = notStarted((error as Error).message ?? String(error), mark);
    }
    this.pid = agent.pid;
    this.#agent = agent;
    this.#stop = (g) => agent.stop(g);
    this.#graceMs = options.stopGraceMs;
    // Remembered on disk so a server restarted after a crash can end an agent it left behind.
    const pids = new AgentPidsFile(options.start.stateDir, (error, file) =>
      log.warn(
        { err: error, pid: agent.pid },
        `could not record the agent's pid in ${file}; a server killed now would leave it running`,
      ),
    );
    // The pid recorded: an agent continued by resume (src/agents/resume-chain.ts) changes its own.
    const recordedPid = agent.pid;
    const entry: AgentPid = {
      pid: agent.pid,
      codonId: options.codonId,
      startedAt: new Date().toISOString(),
      kind: 'agent',
      mark,
    };
    if (agent.pid > 0) {
      log.info({ pid: agent.pid, agent: options.adapter.kind }, 'agent started');
      pids.add(entry);
    }
    /** An agent reporting its tokens at a turn's end: its session in the entry, for a restarted server to read. */
    const recordSession = unreportedSession(options, entry, (id) => {
      if (recordedPid > 0) pids.add(id);
    });
    const stall = new StallWatch(options.stallTimeoutMs, () => {
      if (this.#timedOut || this.#stoppedBy) return;
      this.#stalled = true;
      log.warn({ stallTimeoutMs: options.stallTimeoutMs }, 'the agent stalled; stopping it');
      void agent.stop(options.stopGraceMs);
    });
    agent.onStderr((text) => {
      stall.seen();
      log.info({ stderr: text.slice(0, 2000) }, 'agent stderr');
    });
    agent.onNotice((notice) => {
      const message = `codon ${options.codonId}'s agent ${notice}`;
      log.warn(message);
      options.onOutput({ kind: 'event', event: { type: 'info', data: { message } } });
    });
    const mapper = new StreamMapper({
      codonId: options.codonId,
      maxResultChars: options.maxResultChars,
      costReported: options.adapter.reportsCost !== false,
      mcpServers: (options.start.mcpServers ?? []).map((server) => server.name),
    });
    let result: CodonOutcome['result'];
    const timer = setTimeout(() => {
      if (this.#stalled) return;
      this.#timedOut = true;
      log.warn({ timeoutMs: options.timeoutMs }, 'codon timed out; stopping the agent');
      void agent.stop(options.stopGraceMs);
    }, options.timeoutMs);
    timer.unref();

    const read = (async () => {
      for await (const line of agent.lines) {
        stall.seen(line);
        for (const output of mapper.map(line)) {
          if (output.kind === 'result') result = output;
          if (output.kind === 'session') recordSession?.(output.agentSessionId);
          options.onOutput(output);
        }
      }
      for (const output of mapper.finish()) options.onOutput(output);
    })();

    this.outcome = (async () => {
      const exit = await agent.exited;
      await read.catch((error: unknown) => log.error({ err: error }, 'reading agent output failed'));
      clearTimeout(timer);
      stall.stop();
      // Whatever the agent left behind (background jobs, detached or not) goes with it.
      await agent
        .stop(0)
        .catch((error: unknown) => log.error({ err: error }, 'ending what the agent left failed'));
      if (recordedPid > 0) pids.remove(recordedPid);
      const startFailure = agent.startFailure;
      if (startFailure) log.error({ why: startFailure }, 'the agent could not be started');
      else log.info({ exit }, 'agent exited');
      return {
        exit,
        timedOut: this.#timedOut,
        ...(this.#stalled ? { stalledAfterMs: options.stallTimeoutMs } : {}),
        ...(startFailure ? { startFailure } : {}),
        ...(result
          ? {
              result: {
                isError: result.isError,
                apiErrorStatus: result.apiErrorStatus,
                message: result.message,
                ...(result.retryAfterMs === undefined ? {} : { retryAfterMs: result.retryAfterMs }),
                ...(result.usageLimit === undefined ? {} : { usageLimit: result.usageLimit }),
              },
            }
          : {}),
        ...(this.#stoppedBy ? { stoppedBy: this.#stoppedBy } : {}),
        ...(this.#stopReason ? { stopReason: this.#stopReason } : {}),
      };
    })();
  }

  /**
   * Hands a message to the agent: `live` while its turn runs (its next request carries it),
   * `next-turn` between turns (it starts another); undefined when it takes no more input (it
   * finished, or it is being stopped).
   */
  /** The messages sent that the agent has not taken up yet. */
  get backlog(): MessageBacklog {
    return this.#agent.backlog ?? { count: 0, bytes: 0 };
  }

  send(text: string): 'live' | 'next-turn' | undefined {
    if (this.#stoppedBy || this.#timedOut || this.#stalled) return undefined;
    const delivery = this.#agent.inTurn ? 'live' : 'next-turn';
    return this.#agent.send(text) ? delivery : undefined;
  }

  /** Ends the agent for a client command or its budget; the outcome records why. */
  stop(by: StopKind, reason?: string): Promise<void> {
    if (!this.#stoppedBy) {
      this.#stoppedBy = by;
      this.#stopReason = reason;
    }
    return this.#stop(this.#graceMs);
  }
}

/**
 * For an agent that reports its tokens only at a turn's end (AgentAdapter.spentIn): a function that
 * records its session in the run's pid file entry when it changes, with what the session had spent
 * when the run began (a continued one's earlier runs, read now) and what the codon's agent had. A server
 * killed mid-turn then leaves what a restarted one needs to count the turn's spend (unreported-spend.ts).
 */
function unreportedSession(
  options: CodonRunOptions,
  entry: AgentPid,
  write: (entry: AgentPid) => void,
): ((sessionId: string) => void) | undefined {
  const { adapter, start } = options;
  if (!adapter.spentIn) return undefined;
  let spentBefore = 0;
  try {
    const before = start.resumeSessionId ? adapter.spentIn(start.resumeSessionId, start.stateDir) : undefined;
    spentBefore = before ? priceSpend(before) : 0;
  } catch {
    // Unreadable: the continued session counts as new (a crash then over-counts, never under-counts).
  }
  let recorded: string | undefined;
  return (sessionId) => {
    if (sessionId === recorded) return;
    recorded = sessionId;
    write({
      ...entry,
      agent: adapter.kind,
      agentSessionId: sessionId,
      spentBefore,
      costBefore: options.costBefore ?? 0,
    });
  };
}
