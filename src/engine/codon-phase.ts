import type { MessageBacklog } from '../agents/agent-adapter.ts';
import type { RuntimeCodon } from '../plan/index.ts';
import type { Fingerprint } from './data-fingerprint.ts';
import type { StopKind } from './outcome/failure.ts';

/** A stop asked for the active codon (a client's skip or forceStop, a sentinel, the budget, shutdown). */
export type Stop = { by: StopKind; reason?: string };

/** The verification gates running now: aborting ends the running command. */
export type Gates = { abort: AbortController; done: Promise<unknown> };

/** The running round's agent as the lifecycle uses it (a CodonRun). */
export type AgentRound = {
  readonly backlog: MessageBacklog;
  send(text: string): 'live' | 'next-turn' | undefined;
  stop(by: StopKind, reason?: string): Promise<void>;
};

/** What stays with a codon from its agent's start to the record of its end. */
export type Started = {
  codon: RuntimeCodon;
  startedAt: number;
  /** The model this attempt runs with when it is not the codon's own (the fallback): feedback rounds keep it. */
  model?: string;
  /** The agent's session once it named it: feedback rounds continue it, the codon's end records it. */
  agentSessionId?: string;
  /** The data directory as the codon found it (docs/agents.md#what-the-agent-may-do). */
  dataBefore?: Fingerprint;
};

/** What the codon's agent spent before the running round: that round's agent counts from 0. */
export type Spent = { cost: number; messages: number };

/**
 * Where the active codon is in its course; each phase holds only what it has. `idle` also covers
 * the moments between a codon's preparation and its agent (its start, or its end without an agent,
 * is being recorded, inside the orchestrator's queue): no stop or message reaches it then.
 */
export type Phase =
  | { phase: 'idle' }
  /** Between codon.started and its agent (rig setup, the sentinels' go-ahead): a stop aborts it. */
  | { phase: 'preparing'; codon: RuntimeCodon; abort: AbortController; stop?: Stop }
  /** Its agent (the first run or a feedback round's) works: it takes messages; a stop ends it. */
  | { phase: 'running'; started: Started; run: AgentRound; spentBefore: Spent; stop?: Stop }
  /** Its agent has exited; its gates may run (a stop ends them), then perhaps a feedback round. */
  | { phase: 'agent-ended'; started: Started; gates?: Gates; stop?: Stop }
  /** Its outcome is final (agent, gates, rounds); its end waits to be recorded: a stop changes nothing. */
  | { phase: 'settled'; started: Started; stop?: Stop };

export type PhaseName = Phase['phase'];

export type PhaseEvent =
  | { type: 'prepare'; codon: RuntimeCodon; abort: AbortController }
  | { type: 'prepared' }
  | { type: 'stop'; stop: Stop }
  | { type: 'agent-started'; started: Started; run: AgentRound }
  | { type: 'session'; agentSessionId: string }
  | { type: 'agent-exited'; run: AgentRound }
  | { type: 'gates-started'; gates: Gates }
  | { type: 'gates-ended'; gates: Gates }
  | { type: 'round-started'; run: AgentRound; spentBefore: Spent }
  | { type: 'settled' }
  | { type: 'finished' };

export const IDLE: Phase = { phase: 'idle' };

const NOTHING_SPENT: Spent = { cost: 0, messages: 0 };

/**
 * The one place the phase changes. Pure: the phase after `event`, or undefined when the event does
 * not apply in `from` (a stop when one was already asked for, or nothing is active: refused; any
 * other: a bug, which the caller reports).
 */
export function advance(from: Phase, event: PhaseEvent): Phase | undefined {
  switch (event.type) {
    case 'prepare':
      return from.phase === 'idle'
        ? { phase: 'preparing', codon: event.codon, abort: event.abort }
        : undefined;
    case 'prepared':
      return from.phase === 'preparing' ? IDLE : undefined;
    case 'stop':
      // Claimed once: a second stop while the first takes effect is refused.
      return from.phase === 'idle' || from.stop ? undefined : { ...from, stop: event.stop };
    case 'agent-started':
      return from.phase === 'idle'
        ? { phase: 'running', started: event.started, run: event.run, spentBefore: NOTHING_SPENT }
        : undefined;
    case 'session':
      return from.phase === 'running'
        ? { ...from, started: { ...from.started, agentSessionId: event.agentSessionId } }
        : undefined;
    case 'agent-exited':
      return from.phase === 'running' && from.run === event.run
        ? { phase: 'agent-ended', started: from.started, ...stopOf(from) }
        : undefined;
    case 'gates-started':
      return from.phase === 'agent-ended' && !from.gates ? { ...from, gates: event.gates } : undefined;
    case 'gates-ended':
      return from.phase === 'agent-ended' && from.gates === event.gates
        ? { phase: 'agent-ended', started: from.started, ...stopOf(from) }
        : undefined;
    case 'round-started':
      return from.phase === 'agent-ended' && !from.gates
        ? {
            phase: 'running',
            started: from.started,
            run: event.run,
            spentBefore: event.spentBefore,
            ...stopOf(from),
          }
        : undefined;
    case 'settled':
      // From `running` too: a verification that failed unexpectedly settles the codon where it is.
      return from.phase === 'running' || from.phase === 'agent-ended'
        ? { phase: 'settled', started: from.started, ...stopOf(from) }
        : undefined;
    case 'finished':
      return from.phase === 'running' || from.phase === 'agent-ended' || from.phase === 'settled'
        ? IDLE
        : undefined;
  }
}

/** The stop asked for, spread into a phase (none: nothing). */
function stopOf(phase: Phase): { stop?: Stop } {
  return phase.phase !== 'idle' && phase.stop ? { stop: phase.stop } : {};
}

/** The codon that is preparing or whose agent runs (or ran: its end is not recorded yet), if any. */
export function activeCodon(phase: Phase): RuntimeCodon | undefined {
  switch (phase.phase) {
    case 'idle':
      return undefined;
    case 'preparing':
      return phase.codon;
    default:
      return phase.started.codon;
  }
}

/** How the active codon is being stopped, if it is. */
export function stopKindOf(phase: Phase): StopKind | undefined {
  return phase.phase === 'idle' ? undefined : phase.stop?.by;
}

/**
 * Why a sentinel action cannot stop `codonId` in `phase`, or undefined when it can: it is the active
 * codon, its agent (or a gate, or a feedback round) still runs, and no stop was asked for yet.
 */
export function stopRefusal(phase: Phase, codonId: string): string | undefined {
  if (phase.phase === 'preparing' && phase.codon.id === codonId)
    return `codon ${codonId} has not started its agent yet`;
  if (phase.phase === 'idle' || phase.phase === 'preparing' || phase.started.codon.id !== codonId)
    return `codon ${codonId} is not running`;
  if (phase.phase === 'settled') return `codon ${codonId} has ended (its end is being recorded)`;
  if (phase.stop)
    return `codon ${codonId} is already being ${phase.stop.by === 'skip' ? 'skipped' : 'stopped'}`;
  return undefined;
}

/**
 * Why no agent takes a message in `phase` (nothing runs, rig setup runs, the codon is being
 * stopped, its agent finished). For `running`, asked only once the agent has refused it.
 */
export function messageRefusal(phase: Phase): string {
  if (phase.phase === 'idle') return 'no codon is running, so no agent takes the message';
  if (phase.phase === 'preparing')
    return `codon ${phase.codon.id} is still preparing (rig setup, its sentinels); its agent has not started yet: send the message once it runs`;
  const { id } = phase.started.codon;
  if (phase.stop) return `codon ${id} is being stopped; its agent takes no message`;
  const gates = phase.phase === 'agent-ended' && phase.gates ? ' (its verification gates run)' : '';
  return `the agent of codon ${id} has finished its work and takes no more input${gates}`;
}
