import type { Logger } from 'pino';
import { codonOf, type EngineState, runOf } from '../execution/state/reducer.ts';
import type { TransitionData } from '../execution/state/transitions.ts';
import type { Recorder } from './recorder.ts';

export type SentinelStates = TransitionData<'SentinelStatesUpdated'>['sentinels'];

/** What sentinels record in the run's state: their LLM costs and their load and unload. */
export type SentinelRecords = {
  /** A sentinel's LLM cost: part of the codon's and the run's totals. */
  cost(codonId: string, usd: number): void;
  /** Sentinel load and unload, recorded as SentinelStatesUpdated. */
  states(codonId: string, sentinels: SentinelStates): void;
};

/** Records for a codon of the current run only; a failed write is logged (the sentinel goes on). */
export function sentinelRecords(recorder: Recorder, state: () => EngineState, log: Logger): SentinelRecords {
  const currentRunOf = (codonId: string) => {
    const runId = state().currentRunId;
    return runId && codonOf(runOf(state(), runId), codonId) ? runId : undefined;
  };
  return {
    cost(codonId, usd) {
      const runId = currentRunOf(codonId);
      if (!runId || usd <= 0) return;
      recorder
        .apply('CostsIncremented', { runId, codonId, amount: usd, source: 'sentinel' })
        .catch((error: unknown) => log.error({ err: error }, 'recording a sentinel cost failed'));
    },
    states(codonId, sentinels) {
      const runId = currentRunOf(codonId);
      if (!runId) return;
      recorder
        .apply('SentinelStatesUpdated', { runId, codonId, sentinels })
        .catch((error: unknown) => log.error({ err: error }, 'recording sentinel states failed'));
    },
  };
}
