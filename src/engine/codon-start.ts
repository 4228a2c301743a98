import { randomUUID } from 'node:crypto';
import type { AgentAdapters } from '../agents/agent-adapter.ts';
import { adapterFor } from '../agents/registry/adapters.ts';
import { type CodonRecord, type EngineState, runOf } from '../execution/state/reducer.ts';
import type { RuntimeCodon } from '../plan/index.ts';
import type { AttemptInfo } from './lifecycle-options.ts';
import type { Recorder } from './recorder.ts';

/**
 * Records a codon's start: CodonStarted and codon.started in one transaction. A kill between the
 * two would leave the next server a codon to report ended (codon.completed) that no client was
 * ever told had started.
 */
export function recordStart(
  recorder: Recorder,
  adapters: AgentAdapters,
  codon: RuntimeCodon,
  runId: string,
  previous: CodonRecord | undefined,
  attempt: AttemptInfo | undefined,
  sandboxed = false,
): Promise<unknown> {
  const sessionId = randomUUID();
  const startTime = new Date().toISOString();
  return recorder.applyAll(
    [
      {
        type: 'CodonStarted',
        data: {
          runId,
          codonId: codon.id,
          codonName: codon.name,
          codonIndex: codon.index,
          sessionId,
          startTime,
          ...(previous?.sessionId ? { previousSessionId: previous.sessionId } : {}),
          ...(adapterFor(adapters, codon.agent).reportsCost === false ? { costEstimated: true } : {}),
        },
      },
    ],
    [
      {
        type: 'codon.started',
        data: {
          codonId: codon.id,
          codonName: codon.name,
          ...(codon.description ? { codonDescription: codon.description } : {}),
          sessionId,
          ...(previous?.sessionId ? { previousSessionId: previous.sessionId } : {}),
          startTime,
          ...(attempt ?? {}),
          agent: codon.agent,
          ...(sandboxed ? { sandboxed } : {}),
          ...(codon.promptMetadata ? { promptMetadata: codon.promptMetadata } : {}),
        },
      },
    ],
  );
}

/** For continue-previous: the latest record of the codon before this one in the plan, in any run. */
export function previousCodonOf(state: EngineState, codon: RuntimeCodon): CodonRecord | undefined {
  if (codon.continuation !== 'continue-previous') return undefined;
  const before = codon.index > 0 ? codon.index - 1 : -1;
  if (before < 0) return undefined;
  for (const runId of [...state.runOrder].reverse()) {
    const found = Object.values(runOf(state, runId)?.codons ?? {}).find((c) => c.codonIndex === before);
    if (found) return found;
  }
  return undefined;
}
