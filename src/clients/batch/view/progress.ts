import { displayLine } from '../../model/display-text.ts';
import { formatCost } from '../../model/format.ts';
import type { Tone } from '../../model/tone.ts';
import { type BatchSummary, countStates, type JobState } from '../summary-schema.ts';
import { STATE_ICON, STATE_TONE, STATE_WORD } from './job-table.ts';

/**
 * How far a batch is (pure): jobs finished of all, how many are in each state, and its spend
 * against its budget when it has one. Counted from the jobs themselves, so the header always
 * agrees with the rows under it.
 */
export type BatchProgress = {
  total: number;
  /** Jobs that will not run again: passed, failed, skipped, infra-failed. */
  finished: number;
  counts: Record<JobState, number>;
  spentUsd: number;
  /** Part of the spend is Ribosome's estimate (an agent that reports no cost). */
  costEstimated: boolean;
  /** The batch budget, when one is set, and how much of it is spent (0..1 and past). */
  budget?: { maxCostUsd: number; share: number; tone: Tone | undefined };
};

/** A stretch of a header line and what it means; the component gives each its colour. */
export type Segment = { text: string; tone?: Tone; bold?: boolean };

// The budget's colour: yellow from 80% spent, red once spent.
const WARN_SHARE = 0.8;

export function batchProgress(summary: BatchSummary): BatchProgress {
  const counts = countStates(summary.jobs);
  const total = summary.jobs.length;
  const finished = total - counts.pending - counts.running;
  const max = summary.budget?.maxCostUsd;
  const share = max === undefined || max <= 0 ? undefined : summary.spentUsd / max;
  return {
    total,
    finished,
    counts,
    spentUsd: summary.spentUsd,
    costEstimated: summary.jobs.some((j) => j.metrics?.costEstimated === true),
    ...(max === undefined || share === undefined
      ? {}
      : {
          budget: {
            maxCostUsd: max,
            share,
            tone: share >= 1 ? 'bad' : share >= WARN_SHARE ? 'warn' : undefined,
          },
        }),
  };
}

const BATCH_WORD: Record<BatchSummary['state'], string> = {
  running: 'running',
  finished: 'finished',
  stopped: 'stopped',
};
// States in the order the header lists them (none listed at 0, but pending and running while the batch runs).
const LISTED: readonly JobState[] = ['running', 'pending', 'passed', 'failed', 'infra-failed', 'skipped'];

/**
 * The first header line: the batch's name and state, then how many jobs are in each state, in
 * words where `width` holds them, else by their icons (`▶2 ·5 ✓3`).
 */
export function titleSegments(summary: BatchSummary, progress: BatchProgress, width: number): Segment[] {
  const head: Segment[] = [
    { text: 'Ribosome batch', tone: 'accent', bold: true },
    { text: ` ${displayLine(summary.name)}  ` },
    {
      text: BATCH_WORD[summary.state],
      tone: summary.state === 'running' ? 'accent' : summary.state === 'stopped' ? 'warn' : 'ok',
      bold: true,
    },
  ];
  const listed = LISTED.filter((state) => progress.counts[state] > 0);
  const counts = (label: (state: JobState) => string, gap: string): Segment[] =>
    listed.flatMap((state) => [{ text: gap }, { text: label(state), tone: STATE_TONE[state] }]);
  const words = counts(
    (state) => `${progress.counts[state]} ${state === 'infra-failed' ? state : STATE_WORD[state]}`,
    '  ',
  );
  if (segmentsText([...head, ...words]).length <= width) return [...head, ...words];
  return [...head, ...counts((state) => `${STATE_ICON[state]}${progress.counts[state]}`, ' ')];
}

/**
 * The second header line: a bar of jobs finished of all, then the spend, with a bar of the budget
 * when one is set. The bars share what the labels leave of `width`.
 */
export function progressSegments(progress: BatchProgress, width: number): Segment[] {
  const jobs = `${progress.finished}/${progress.total} done`;
  const spent = formatCost(progress.spentUsd, progress.costEstimated);
  const budget = progress.budget;
  const percent = budget ? `(${Math.round(budget.share * 100)}%)` : '';
  // Where the words do not fit, the figures alone: `$4.10/$5.00 (82%)`.
  const long = budget ? `${spent} of ${formatCost(budget.maxCostUsd)} budget ${percent}` : `${spent} spent`;
  const spend =
    budget && 5 + jobs.length + 3 + long.length > width
      ? `${spent}/${formatCost(budget.maxCostUsd)} ${percent}`
      : long;
  // `jobs [bar] 3/10 done   [bar] $1.20 of $5 budget (24%)`: what the text takes, the bars share the rest.
  const text = 5 + jobs.length + 4 + (budget ? 2 : 0) + spend.length;
  const room = Math.max(0, width - text - (budget ? 4 : 2));
  const each = budget ? Math.floor(room / 2) : room;
  const barWidth = Math.min(40, each);
  const jobShare = progress.total === 0 ? 0 : progress.finished / progress.total;
  const segments: Segment[] = [{ text: 'jobs ' }];
  if (barWidth >= 4) segments.push(...bar(jobShare, barWidth, 'accent'), { text: ' ' });
  segments.push({ text: jobs }, { text: '   ' });
  if (budget) {
    if (barWidth >= 4) segments.push(...bar(budget.share, barWidth, budget.tone ?? 'ok'), { text: ' ' });
    segments.push({ text: spend, ...(budget.tone ? { tone: budget.tone, bold: true } : {}) });
  } else segments.push({ text: spend });
  return segments;
}

/**
 * `[████░░░░]`: `share` of `width` cells filled; never full before the end nor empty after the
 * start, so 1 of 300 jobs shows, and 299 of 300 does not read as all.
 */
export function bar(share: number, width: number, tone: Tone): Segment[] {
  const cells = Math.max(0, width - 2);
  const s = Number.isFinite(share) ? Math.max(0, share) : 0;
  let filled = Math.round(Math.min(1, s) * cells);
  if (s > 0 && filled === 0) filled = 1;
  if (s < 1 && filled === cells) filled = cells - 1;
  return [
    { text: '[' },
    { text: '█'.repeat(Math.max(0, filled)), tone },
    { text: '░'.repeat(Math.max(0, cells - filled)), tone: 'muted' },
    { text: ']' },
  ];
}

export const segmentsText = (segments: readonly Segment[]): string => segments.map((s) => s.text).join('');
