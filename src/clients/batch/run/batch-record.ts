import { z } from 'zod';
import type { Job } from '../../../plan/batch-schema.ts';
import { readJsonFile } from '../../../platform/files/atomic-write.ts';
import { type BatchLayout, jobExecutionDir, jobResultFile } from '../layout.ts';
import { jobMetrics } from '../results/job-metrics.ts';
import { BatchSummary, JobResult } from '../summary-schema.ts';
import { latestRun } from './latest-run.ts';
import type { Slot } from './schedule.ts';
import { batchSummary, type JobNow } from './summary.ts';
import { resumedState } from './verdict.ts';

/** batch.json: the batch as its last start expanded it. */
export const BatchRecord = z.object({
  name: z.string(),
  file: z.string(),
  jobs: z.array(z.custom<Job>((v) => typeof v === 'object' && v !== null && 'id' in v && 'plan' in v)),
});
export type BatchRecord = z.infer<typeof BatchRecord>;

export function readBatchRecord(layout: BatchLayout): BatchRecord | undefined {
  return readJsonFile(layout.batchRecord, BatchRecord);
}

/**
 * The batch's summary read from its directory alone, with no batch process: each job's state from its
 * execution (as a batch started again would see it) and from the result file its run left (starts,
 * exit code, time), e.g. after the pods of a cluster batch have each run one job.
 */
export function summaryFromDir(layout: BatchLayout, record: BatchRecord, now = new Date()): BatchSummary {
  const before = readJsonFile(layout.summary, BatchSummary);
  const entries: JobNow[] = record.jobs.map((job) => {
    const dir = jobExecutionDir(layout, job.id);
    const result =
      readJsonFile(jobResultFile(layout, job.id), JobResult) ?? before?.jobs.find((j) => j.id === job.id);
    const resumed = resumedState(latestRun(dir));
    const starts = result?.starts ?? 0;
    const durationMs = result?.durationMs ?? 0;
    // What the result file says of the job's end holds while the execution agrees with it: a run
    // since (the job run again by hand after a rollback, say) wins.
    const agrees =
      result?.state === resumed.state || (resumed.state === 'pending' && result?.state !== 'passed');
    const times = {
      ...(agrees && result?.exitCode !== undefined ? { exitCode: result.exitCode } : {}),
      ...(result?.startedAt ? { startedAt: result.startedAt } : {}),
      ...(agrees && result?.endedAt ? { endedAt: result.endedAt } : {}),
    };
    const reason = (agrees ? result?.reason : undefined) ?? resumed.reason;
    let slot: Slot;
    if (resumed.state !== 'pending') {
      slot = {
        kind: 'ended',
        state: resumed.state,
        starts,
        durationMs,
        ...(reason ? { reason } : {}),
        ...times,
      };
    } else if (result?.state === 'infra-failed') {
      slot = {
        kind: 'ended',
        state: 'infra-failed',
        starts,
        durationMs,
        ...(reason ? { reason } : {}),
        ...times,
      };
    } else if (result?.state === 'skipped') {
      slot = { kind: 'skipped', starts, durationMs, reason: reason ?? 'skipped' };
    } else {
      slot = { kind: 'pending', starts, durationMs };
    }
    const metrics = jobMetrics(dir);
    return { job, slot, ...(metrics ? { metrics } : {}) };
  });
  const info = {
    name: record.name,
    file: record.file,
    dir: layout.dir,
    startedAt: before?.startedAt ?? now.toISOString(),
    parallel: before?.parallel ?? 1,
    ...(before?.budget ? { budget: before.budget } : {}),
  };
  const open = entries.some((e) => e.slot.kind === 'pending');
  return batchSummary(info, entries, open ? 'stopped' : 'finished', now);
}
