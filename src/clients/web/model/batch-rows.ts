import type { BatchFleet, FleetJob, FleetJobState } from '../../batch/fleet/fleet-schema.ts';
import { recordCommand } from '../../batch/fleet/job-words.ts';
import { formatCost } from '../../model/format.ts';
import type { Tone } from '../../model/tone.ts';
import { durationWords } from './time-words.ts';

/**
 * What the fleet view of a batch shows (docs/dashboard.md#a-batchs-fleet): a header with the batch's
 * name, counts and spend, and a row per job. The colours are the codons' (running accent, passed as
 * completed, failed red, skipped amber). Pure.
 */
export const JOB_TONE: Readonly<Record<FleetJobState, Tone>> = {
  pending: 'muted',
  running: 'accent',
  passed: 'ok',
  failed: 'bad',
  'infra-failed': 'bad',
  skipped: 'warn',
  unknown: 'muted',
};

/** The order counts are read in: what moves first, then how it ended. */
const COUNT_ORDER: readonly FleetJobState[] = [
  'running',
  'pending',
  'passed',
  'failed',
  'infra-failed',
  'skipped',
  'unknown',
];

export type BatchHeader = {
  title: string;
  state: string;
  /** `2 running · 1 passed` (states with no job left out). */
  counts: string;
  /** `$0.0123`, or `$0.0123 of $5.00` with a batch budget. */
  spend: string;
};

export function batchHeader(fleet: BatchFleet): BatchHeader {
  const counts = COUNT_ORDER.flatMap((state) => {
    const n = fleet.counts[state] ?? 0;
    return n > 0 ? [`${n} ${state}`] : [];
  });
  const spent = formatCost(fleet.spentUsd);
  return {
    title: `batch ${fleet.name}`,
    state: fleet.state,
    counts: counts.length > 0 ? counts.join(' · ') : 'no job',
    spend: fleet.budget ? `${spent} of ${formatCost(fleet.budget.maxCostUsd)}` : spent,
  };
}

/** What a row offers: open the job's server, or say why there is none and what shows its record. */
export type JobAction = { kind: 'open' } | { kind: 'hint'; text: string; command?: string };

export type BatchRow = {
  id: string;
  index: number;
  state: FleetJobState;
  tone: Tone;
  reason?: string;
  /** `2/5`, `2/?` before the plan's size is known, `—` before the journal says anything. */
  codons: string;
  currentCodon?: string;
  cost: string;
  elapsed: string;
  lastEvent: string;
  action: JobAction;
};

export function batchRow(job: FleetJob): BatchRow {
  const m = job.metrics;
  return {
    id: job.id,
    index: job.index,
    state: job.state,
    tone: JOB_TONE[job.state],
    ...(job.reason === undefined ? {} : { reason: job.reason }),
    codons: m ? `${m.codonsDone}/${m.codonsTotal ?? '?'}` : '—',
    ...(m?.currentCodon !== undefined && job.state === 'running' ? { currentCodon: m.currentCodon } : {}),
    cost: m ? formatCost(m.costUsd, m.costEstimated) : '—',
    elapsed: job.elapsedMs === undefined ? '—' : durationWords(job.elapsedMs),
    lastEvent: m?.lastEvent?.text ?? '—',
    action: actionOf(job),
  };
}

function actionOf(job: FleetJob): JobAction {
  if (job.url !== undefined) return { kind: 'open' };
  switch (job.state) {
    case 'pending':
      return { kind: 'hint', text: 'not started' };
    case 'running':
      return { kind: 'hint', text: 'no live server yet' };
    case 'skipped':
      return { kind: 'hint', text: 'never ran' };
    case 'unknown':
      return { kind: 'hint', text: 'no live server: see it with', command: recordCommand(job) };
    default:
      return { kind: 'hint', text: 'ended: see it with', command: recordCommand(job) };
  }
}
