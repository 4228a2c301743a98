import type { CodonExecution, EventInput, FileNode } from '../protocol/index.ts';
import type { EngineState } from '../state/reducer.ts';

/** Builds a state.snapshot (spec 6.1) from the state. Pure. */
export function buildSnapshot(
  state: EngineState,
  options: { fileTree: FileNode[]; isRollingBack: boolean; now: number },
): EventInput<'state.snapshot'> {
  const run = state.currentRunId ? state.runs[state.currentRunId] : undefined;
  const executions = run ? run.order.map((id) => run.codons[id]).filter((c) => c !== undefined) : [];
  const toExecution = ({
    codonIndex: _i,
    attempt: _a,
    agentSessionId: _s,
    agentCost: _ac,
    sentinelCost: _sc,
    ...c
  }: (typeof executions)[number]): CodonExecution => c;
  const current = executions.find((c) => c.status === 'preparing' || c.status === 'running');
  const totalTime = executions.reduce((sum, c) => {
    if (c.duration !== undefined) return sum + c.duration;
    return c.startTime ? sum + Math.max(0, options.now - Date.parse(c.startTime)) : sum;
  }, 0);
  return {
    ...(current ? { currentCodon: toExecution(current) } : {}),
    completedCodons: executions.filter((c) => c !== current).map(toExecution),
    fileTree: options.fileTree,
    totalCost: state.totalCost,
    totalTime,
    isRollingBack: options.isRollingBack,
  };
}
