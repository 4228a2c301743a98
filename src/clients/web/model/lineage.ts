import type { CheckpointInfo, ServerEvent } from '../../../core/protocol/index.ts';
import { APPROVAL_WAIT_WORD } from '../../model/approval-wait.ts';
import { USAGE_WAIT_WORD } from '../../model/usage-wait.ts';

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

/**
 * What the runs list says of a run: its recorded ending, or for the current run, still recorded as
 * running while the server keeps serving (`--keep-serving`), what it is doing: `waiting for approval`
 * or `waiting for usage limit` while it waits, `plan done` once every codon is, `idle` between codons,
 * else `running`. Pure.
 */
export function runStatusWord(
  entry: RunEntry,
  current: {
    runId?: string | undefined;
    idle?: { reason: string } | undefined;
    approvalWait?: unknown;
    usageWait?: unknown;
  },
): string {
  if (entry.status !== 'running' || entry.runId !== current.runId) return entry.status;
  if (current.approvalWait) return APPROVAL_WAIT_WORD;
  if (current.usageWait) return USAGE_WAIT_WORD;
  if (!current.idle) return entry.status;
  return current.idle.reason === 'all-codons-completed' ? 'plan done' : 'idle';
}

/** A run and the runs it grew from (by rollback or recovery), newest first. */
export function lineageOf(runs: readonly RunEntry[], runId: string | undefined): RunEntry[] {
  const out: RunEntry[] = [];
  let at = runId ? runs.find((r) => r.runId === runId) : undefined;
  while (at && !out.includes(at)) {
    out.push(at);
    const from: string | undefined = at.fromRunId;
    at = from ? runs.find((r) => r.runId === from) : undefined;
  }
  return out;
}

/** A checkpoint the diff can start or end at, and the run that took it. */
export type DiffPoint = CheckpointInfo & { runId?: string };

/**
 * What the changes view offers to diff: the current run's checkpoints, those the earlier runs of its
 * lineage took (as their checkpoint.list answers listed them), and each run's initial checkpoint (no
 * codon's: where its first codon starts); one per sha, oldest first. After a rollback or a recovery the
 * new run has none of its own yet, and its lineage still has something to compare.
 */
export function diffPoints(
  runs: readonly RunEntry[],
  runId: string | undefined,
  current: readonly CheckpointInfo[],
  listed: Readonly<Record<string, readonly CheckpointInfo[]>>,
): DiffPoint[] {
  const bySha = new Map<string, DiffPoint>();
  for (const c of current) bySha.set(c.sha, runId ? { ...c, runId } : { ...c });
  for (const run of lineageOf(runs, runId)) {
    if (run.runId !== runId)
      for (const c of listed[run.runId] ?? [])
        if (!bySha.has(c.sha)) bySha.set(c.sha, { ...c, runId: run.runId });
    if (run.initialSha && !bySha.has(run.initialSha))
      bySha.set(run.initialSha, {
        codonId: '',
        codonName: '',
        checkpointType: 'rig-setup',
        sha: run.initialSha,
        status: 'pending',
        timestamp: run.startedAt,
        runId: run.runId,
      });
  }
  return [...bySha.values()].sort((a, b) => a.timestamp.localeCompare(b.timestamp));
}
