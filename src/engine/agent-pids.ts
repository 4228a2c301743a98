import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { startTicks } from '../platform/processes/process-tree.ts';

const AgentPid = z.object({
  pid: z.number().int().positive(),
  codonId: z.string(),
  startedAt: z.string(),
  /** What the process is: a codon's agent, a rig setup command, or a verification gate's command. */
  kind: z.enum(['agent', 'rig', 'gate']).optional(),
  /** The process's start time (process-tree startTicks), to tell it from a later process with its pid. */
  startTicks: z.number().optional(),
  /**
   * The mark its processes carry in their environment, even those that left its tree: a rig step's
   * (rig-setup STEP_MARK), a gate's (run-gates GATE_MARK) or an agent run's (spawn-agent AGENT_MARK), by `kind`.
   */
  mark: z.string().optional(),
  /**
   * An agent that reports its tokens only at a turn's end (AgentAdapter.spentIn): which one, its session
   * once it reported it, what that session had spent when this run began (USD, a continued session's
   * earlier runs) and what the codon's agent had spent by then (earlier feedback rounds). A restarted
   * server counts what the run spent beyond what was journaled (unreported-spend.ts).
   */
  agent: z.string().optional(),
  agentSessionId: z.string().optional(),
  spentBefore: z.number().optional(),
  costBefore: z.number().optional(),
});
export type AgentPid = z.infer<typeof AgentPid>;
/** Earlier versions kept one object; a list now, read either way. */
const Stored = z.union([z.array(AgentPid), AgentPid.transform((one) => [one])]);

/**
 * `.ribosome/agents/active-agent.json`: every process a server has started for a codon (its agent,
 * a rig setup command) and not yet seen end, so a server restarted after a crash can end each one
 * with its whole tree. Written synchronously,
 * right after the spawn, so the record is on disk before anything else happens. A write that fails
 * (no file descriptor left) goes to `onError` and never stops the codon: only a crash's cleanup
 * would miss the process then.
 */
export class AgentPidsFile {
  readonly #file: string;
  readonly #onError: (error: unknown, file: string) => void;

  /**
   * `onError`: a write or read that failed (a full disk, no file descriptor left). Never thrown: the
   * process runs and is ended by this server all the same; only a server killed meanwhile would not
   * find it.
   */
  constructor(stateDir: string, onError: (error: unknown, file: string) => void = () => {}) {
    this.#file = join(stateDir, 'active-agent.json');
    this.#onError = onError;
  }

  read(): AgentPid[] {
    return this.#load() ?? [];
  }

  add(entry: AgentPid): void {
    const ticks = entry.startTicks ?? startTicks(entry.pid);
    const full = ticks === undefined ? entry : { ...entry, startTicks: ticks };
    const entries = this.#load();
    if (entries) this.#write([...entries.filter((e) => e.pid !== entry.pid), full]);
  }

  remove(pid: number): void {
    const entries = this.#load();
    if (entries) this.#write(entries.filter((e) => e.pid !== pid));
  }

  /** The entries; undefined (and reported) when the file is there but cannot be read now. */
  #load(): AgentPid[] | undefined {
    let text: string;
    try {
      text = readFileSync(this.#file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      this.#onError(error, this.#file); // Rewriting it now would drop the entries it holds.
      return undefined;
    }
    try {
      return Stored.parse(JSON.parse(text));
    } catch {
      return []; // Torn by a crash mid-write (the rename makes that unlikely).
    }
  }

  #write(entries: AgentPid[]): void {
    const tmp = `${this.#file}.tmp`;
    try {
      if (entries.length === 0) {
        rmSync(this.#file, { force: true });
        return;
      }
      writeFileSync(tmp, JSON.stringify(entries));
      renameSync(tmp, this.#file);
    } catch (error) {
      try {
        rmSync(tmp, { force: true });
      } catch {
        // A read-only disk: nothing to remove it with.
      }
      this.#onError(error, this.#file);
    }
  }
}
