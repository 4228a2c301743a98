import type { Logger } from 'pino';
import type { AgentAdapter, AgentStart } from '../agents/agent-adapter.ts';
import { AgentPidsFile } from './agent-pids.ts';
import type { CodonOutcome } from './failure.ts';
import { type MappedOutput, StreamMapper } from './stream-mapper.ts';

export type CodonRunOptions = {
  codonId: string;
  adapter: AgentAdapter;
  start: AgentStart;
  timeoutMs: number;
  stopGraceMs: number;
  maxResultChars: number;
  logger: Logger;
  /** Every mapped output, in stream order. */
  onOutput: (output: MappedOutput) => void;
};

/**
 * One agent process working on one codon: starts it, maps its stream as it arrives, enforces the
 * timeout, and ends it (with its whole process tree) when asked. `outcome` resolves once the
 * process has exited and its output has been read to the end.
 */
export class CodonRun {
  readonly outcome: Promise<CodonOutcome>;
  readonly pid: number;
  readonly startedAt = Date.now();
  #stoppedBy: CodonOutcome['stoppedBy'];
  #stopReason: string | undefined;
  #timedOut = false;
  readonly #stop: (graceMs: number) => Promise<void>;
  readonly #graceMs: number;

  constructor(options: CodonRunOptions) {
    const log = options.logger.child({ codonId: options.codonId });
    const agent = options.adapter.start(options.start);
    this.pid = agent.pid;
    this.#stop = (g) => agent.stop(g);
    this.#graceMs = options.stopGraceMs;
    log.info({ pid: agent.pid, agent: options.adapter.kind }, 'agent started');
    // Remembered on disk so a server restarted after a crash can end an agent it left behind.
    const pids = new AgentPidsFile(options.start.stateDir, (error, file) =>
      log.warn(
        { err: error, pid: agent.pid },
        `could not record the agent's pid in ${file}; a server killed now would leave it running`,
      ),
    );
    pids.add({
      pid: agent.pid,
      codonId: options.codonId,
      startedAt: new Date().toISOString(),
      kind: 'agent',
    });
    agent.onStderr((text) => log.info({ stderr: text.slice(0, 2000) }, 'agent stderr'));
    const mapper = new StreamMapper({ codonId: options.codonId, maxResultChars: options.maxResultChars });
    let result: CodonOutcome['result'];
    const timer = setTimeout(() => {
      this.#timedOut = true;
      log.warn({ timeoutMs: options.timeoutMs }, 'codon timed out; stopping the agent');
      void agent.stop(options.stopGraceMs);
    }, options.timeoutMs);
    timer.unref();

    const read = (async () => {
      for await (const line of agent.lines) {
        for (const output of mapper.map(line)) {
          if (output.kind === 'result') result = output;
          options.onOutput(output);
        }
      }
      for (const output of mapper.finish()) options.onOutput(output);
    })();

    this.outcome = (async () => {
      const exit = await agent.exited;
      await read.catch((error: unknown) => log.error({ err: error }, 'reading agent output failed'));
      clearTimeout(timer);
      // Whatever the agent left behind (background jobs) goes with it.
      await agent.stop(0);
      pids.remove(agent.pid);
      log.info({ exit }, 'agent exited');
      return {
        exit,
        timedOut: this.#timedOut,
        ...(result
          ? {
              result: {
                isError: result.isError,
                apiErrorStatus: result.apiErrorStatus,
                message: result.message,
              },
            }
          : {}),
        ...(this.#stoppedBy ? { stoppedBy: this.#stoppedBy } : {}),
        ...(this.#stopReason ? { stopReason: this.#stopReason } : {}),
      };
    })();
  }

  /** Ends the agent for a client command; the outcome records why. */
  stop(by: 'forceStop' | 'skip', reason?: string): Promise<void> {
    if (!this.#stoppedBy) {
      this.#stoppedBy = by;
      this.#stopReason = reason;
    }
    return this.#stop(this.#graceMs);
  }
}
