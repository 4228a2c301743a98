import type { EngineState, RunState } from '../state/reducer.ts';

/**
 * Where a new run goes on: after the last codon that ended well, or at the last codon again when it
 * failed or was interrupted (so a restart retries it). Pure.
 */
export function resumeIndex(previous: RunState | undefined): number {
  if (!previous) return 0;
  const lastId = previous.order.at(-1);
  const last = lastId ? previous.codons[lastId] : undefined;
  if (!last) return previous.nextCodonIndex;
  return last.status === 'completed' || last.status === 'skipped' ? last.codonIndex + 1 : last.codonIndex;
}

/** The codon codon.redo means: the last one that ran, in this run or the one before. */
export function redoTarget(state: EngineState): { codonId: string; runId: string } | undefined {
  for (const runId of [...state.runOrder].reverse()) {
    const run = state.runs[runId];
    const last = run?.order.at(-1);
    if (run && last) return { codonId: last, runId };
  }
  return undefined;
}
