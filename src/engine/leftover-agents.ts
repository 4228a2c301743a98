import { readFileSync } from 'node:fs';
import type { Logger } from 'pino';
import { AGENT_MARK } from '../agents/spawn-agent.ts';
import { endMarked, isAlive, killTree, startTicks } from '../platform/processes/process-tree.ts';
import { type AgentPid, AgentPidsFile } from './agent-pids.ts';
import { STEP_MARK } from './rig-setup.ts';
import { GATE_MARK } from './verify/run-gates.ts';

const MARKS = { agent: AGENT_MARK, rig: STEP_MARK, gate: GATE_MARK } as const;

/** A process a killed server left running for a codon, ended by this one: its agent, a rig setup or a gate command. */
export type EndedProcess = { codonId: string; kind: NonNullable<AgentPid['kind']> };

/** What a killed server left: the processes ended, and the agent runs that named their session. */
export type Leftover = { ended: EndedProcess[]; sessions: AgentPid[] };

/**
 * A server that was killed leaves its agents (and their tools), rig setup and gate commands running:
 * ends each one the pid file names, whole trees, and every process carrying its mark (those that
 * left the tree), before anything else starts. Returns the processes it ended (by codon and kind), and the
 * entries of agent runs that recorded their session (an agent reporting tokens at a turn's end), ended
 * now or not, for what they spent to be counted (unreported-spend.ts).
 */
export async function endLeftoverAgents(stateDir: string, graceMs: number, log: Logger): Promise<Leftover> {
  const file = new AgentPidsFile(stateDir);
  const ended: EndedProcess[] = [];
  const sessions: AgentPid[] = [];
  for (const entry of file.read()) {
    if ((entry.kind ?? 'agent') === 'agent' && entry.agentSessionId) sessions.push(entry);
    if (isAlive(entry.pid) && isTheSameProcess(entry)) {
      log.warn(
        { pid: entry.pid, codonId: entry.codonId, kind: entry.kind ?? 'agent' },
        'ending a process left running by a server that stopped abruptly',
      );
      await killTree(entry.pid, graceMs);
      ended.push({ codonId: entry.codonId, kind: entry.kind ?? 'agent' });
    }
    // Processes that detached from its tree still carry its mark.
    if (entry.mark) {
      const escaped = await endMarked(MARKS[entry.kind ?? 'agent'], entry.mark, graceMs);
      if (escaped > 0)
        log.warn({ codonId: entry.codonId, processes: escaped }, 'ended processes that had left its tree');
    }
    file.remove(entry.pid);
  }
  return { ended, sessions };
}

/** Guards against a pid reused by an unrelated process since the crash. */
function isTheSameProcess(entry: AgentPid): boolean {
  if (entry.startTicks !== undefined) return startTicks(entry.pid) === entry.startTicks;
  return looksLikeAgent(entry.pid);
}

/** For entries written before start times were recorded. */
function looksLikeAgent(pid: number): boolean {
  try {
    const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    return /ribosome|claude/.test(cmdline);
  } catch {
    return false;
  }
}
