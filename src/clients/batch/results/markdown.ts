import { ESTIMATE_LEGEND } from '../../../llm/estimated-cost.ts';
import { formatCost, formatDuration } from '../../model/format.ts';
import { type BatchSummary, type JobResult, JobState } from '../summary-schema.ts';
import { markdownCell } from './escape.ts';
import { jobReason } from './job-text.ts';

/**
 * `summary.md`: the batch for a person (a CI job summary, a pull request comment): its counts and
 * total cost on top, then one table row per job. Every text from the batch is one cell's worth of
 * escaped Markdown. Pure.
 */
export function summaryMarkdown(summary: BatchSummary): string {
  const estimated = summary.jobs.some((j) => j.metrics?.costEstimated === true);
  const counts = JobState.options
    .filter((state) => (summary.counts[state] ?? 0) > 0)
    .map((state) => `${summary.counts[state]} ${state}`);
  const took = summary.endedAt ? Date.parse(summary.endedAt) - Date.parse(summary.startedAt) : undefined;
  const lines = [
    `# Batch ${markdownCell(summary.name)}`,
    '',
    [
      `**${summary.state}**`,
      `${summary.jobs.length} ${summary.jobs.length === 1 ? 'job' : 'jobs'}${counts.length > 0 ? `: ${counts.join(', ')}` : ''}`,
      `total cost ${formatCost(summary.spentUsd, estimated)}${summary.budget ? ` of ${formatCost(summary.budget.maxCostUsd)}` : ''}`,
      ...(took === undefined ? [] : [formatDuration(took)]),
    ].join(' · '),
    '',
    '| job | state | codons | cost | time | reason |',
    '| --- | --- | ---: | ---: | ---: | --- |',
    ...summary.jobs.map(row),
  ];
  if (estimated) lines.push('', ESTIMATE_LEGEND);
  return `${lines.join('\n')}\n`;
}

function row(job: JobResult): string {
  const m = job.metrics;
  const cells = [
    markdownCell(job.id),
    job.state,
    m ? `${m.codonsDone}/${m.codonsTotal ?? '?'}` : '',
    m ? formatCost(m.costUsd, m.costEstimated) : '',
    job.durationMs === undefined ? '' : formatDuration(job.durationMs),
    markdownCell(jobReason(job)),
  ];
  return `| ${cells.join(' | ')} |`;
}
