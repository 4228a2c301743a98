import type { AgentAdapters, ModelSpend } from '../agents/agent-adapter.ts';
import { costOf } from '../llm/pricing.ts';
import type { Agent } from '../plan/primitives.ts';
import type { AgentPid } from './agent-pids.ts';

/** Below this, what a session records and what was journaled are the same figure (float noise). */
const NOISE_USD = 1e-9;

/** Tokens by model, priced from the table (src/llm/pricing.ts), as the engine prices what an agent reports. */
export function priceSpend(spend: readonly ModelSpend[]): number {
  return spend.reduce((sum, { model, usage }) => sum + costOf(model, usage).usd, 0);
}

/**
 * What the agent run `entry` (a pid file entry a crashed server left) spent beyond what the journal
 * counted for it: its session's spend as the agent recorded it (AgentAdapter.spentIn), less what the
 * session had spent when the run began, less what the codon's agent cost (`agentCost`, journaled) went
 * up by during the run. Zero for an agent that reports as it goes (no spentIn), a run whose session
 * was never reported, or one whose record cannot be read.
 */
export function unreportedSpend(
  entry: AgentPid,
  agentCost: number,
  adapters: AgentAdapters,
  stateDir: string,
): number {
  if (!entry.agent || !entry.agentSessionId) return 0;
  const adapter = adapters[entry.agent as Agent];
  const spend = adapter?.spentIn?.(entry.agentSessionId, stateDir);
  if (!spend) return 0;
  const spent = priceSpend(spend) - (entry.spentBefore ?? 0);
  const counted = agentCost - (entry.costBefore ?? 0);
  const extra = spent - counted;
  return extra > NOISE_USD ? extra : 0;
}
