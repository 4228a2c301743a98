import type { ServerEvent } from '../../protocol/index.ts';

/** The execution's runs from RunStarted/RunCompleted/RunFailed/RunCrashed transitions: a rollback starts a run from another. */

export type RunEntry = {
  runId: string;
  startedAt: string;
  reason?: string;
  fromRunId?: string;
  fromCheckpoint?: string;
  branch?: string;
  /** The run's initial checkpoint (InitialCheckpointSet): where its first codon starts. */
  initialSha?: string;
  status: 'running' | 'completed' | 'failed' | 'crashed';
  endedAt?: string;
};

const str = (v: unknown) => (typeof v === 'string' ? v : undefined);

export function foldRuns(runs: readonly RunEntry[], events: readonly ServerEvent[]): RunEntry[] {
  const out = runs.slice();
  for (const e of events) {
    if (e.type !== 'state.transition') continue;
    const type = e.data.transitionType;
    const data = e.data.transition.data;
    const runId = str(data.runId);
    if (!runId) continue;
    if (type === 'RunStarted') {
      const entry: RunEntry = { runId, startedAt: str(data.startedAt) ?? e.timestamp, status: 'running' };
      for (const key of ['reason', 'fromRunId', 'fromCheckpoint', 'branch'] as const) {
        const v = str(data[key]);
        if (v) entry[key] = v;
      }
      const at = out.findIndex((r) => r.runId === runId);
      if (at >= 0) out[at] = entry;
      else out.push(entry);
    } else if (type === 'InitialCheckpointSet') {
      const at = out.findIndex((r) => r.runId === runId);
      const row = out[at];
      const sha = str(data.sha);
      if (row && sha) out[at] = { ...row, initialSha: sha };
    } else if (type === 'RunCompleted' || type === 'RunFailed' || type === 'RunCrashed') {
      const at = out.findIndex((r) => r.runId === runId);
      const row = out[at];
      if (!row) continue;
      const status = type === 'RunCompleted' ? 'completed' : type === 'RunFailed' ? 'failed' : 'crashed';
      const endedAt = str(data.endedAt) ?? str(data.detectedAt) ?? e.timestamp;
      out[at] = { ...row, status, endedAt };
    }
  }
  return out;
}
