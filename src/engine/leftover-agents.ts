import { readFileSync } from 'node:fs';
import type { Logger } from 'pino';
import { isAlive, killTree } from '../agents/process-tree.ts';
import { AgentPidsFile } from './agent-pids.ts';

/**
 * A server that was killed leaves its agents (and the agents' tools) running: ends each one the
 * pid file names, whole trees, before anything else starts. Returns the codons whose agent it ended.
 */
export async function endLeftoverAgents(stateDir: string, graceMs: number, log: Logger): Promise<string[]> {
  const file = new AgentPidsFile(stateDir);
  const ended: string[] = [];
  for (const entry of file.read()) {
    if (isAlive(entry.pid) && looksLikeAgent(entry.pid)) {
      log.warn(
        { pid: entry.pid, codonId: entry.codonId },
        'ending an agent left running by a server that stopped abruptly',
      );
      await killTree(entry.pid, graceMs);
      ended.push(entry.codonId);
    }
    file.remove(entry.pid);
  }
  return ended;
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
