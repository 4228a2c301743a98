import { describe, expect, it } from 'vitest';
import {
  bar,
  batchProgress,
  progressSegments,
  segmentsText,
  titleSegments,
} from '../../../../src/clients/batch/view/progress.ts';
import { everyState, job, metrics, summaryOf } from './helpers/summaries.ts';

const filled = (share: number, width: number) =>
  segmentsText(bar(share, width, 'accent')).split('█').length - 1;

describe('how far a batch is', () => {
  it('counts the jobs in each state from the jobs themselves, and which are finished', () => {
    const summary = summaryOf(everyState());
    const progress = batchProgress(summary);
    expect(progress).toMatchObject({
      total: 6,
      finished: 4,
      counts: { pending: 1, running: 1, passed: 1, failed: 1, skipped: 1, 'infra-failed': 1 },
    });
    expect(progress.budget).toBeUndefined();
    expect(segmentsText(titleSegments(summary, progress, 160))).toBe(
      'Ribosome batch demo  running  1 running  1 pending  1 passed  1 failed  1 infra-failed  1 skipped',
    );
    // Where the words do not fit: the icons.
    expect(segmentsText(titleSegments(summary, progress, 60))).toBe(
      'Ribosome batch demo  running ▶1 ·1 ✓1 ✗1 !1 ↷1',
    );
  });

  it('leaves states without a job out of the title', () => {
    const summary = summaryOf([job(0, 'passed'), job(1, 'passed')], { state: 'finished' });
    expect(segmentsText(titleSegments(summary, batchProgress(summary), 120))).toBe(
      'Ribosome batch demo  finished  2 passed',
    );
  });

  it.each([
    [3.9, undefined, '(78%)'],
    [4, 'warn', '(80%)'],
    [5, 'bad', '(100%)'],
    [6.5, 'bad', '(130%)'],
  ])('spend $%s of a $5 budget: tone %s, %s', (spent, tone, percent) => {
    const summary = summaryOf([job(0, 'running', { metrics: metrics({ costUsd: spent }) })], {
      budget: { maxCostUsd: 5 },
      spentUsd: spent,
    });
    const progress = batchProgress(summary);
    expect(progress.budget?.tone).toBe(tone);
    const line = segmentsText(progressSegments(progress, 100));
    expect(line).toContain(`of $5.00 budget ${percent}`);
    const spend = progressSegments(progress, 100).find((s) => s.text.includes('budget'));
    expect(spend?.tone).toBe(tone);
  });

  it('draws a bar of jobs done and one of the budget, sharing the width; without a budget, the spend alone', () => {
    const withBudget = summaryOf(everyState(), { budget: { maxCostUsd: 10 }, spentUsd: 2.5 });
    const line = segmentsText(progressSegments(batchProgress(withBudget), 100));
    expect(line).toMatch(/^jobs \[[█░]+\] 4\/6 done {3}\[[█░]+\] \$2\.50 of \$10\.00 budget \(25%\)$/);
    expect(line.length).toBeLessThanOrEqual(100);
    const bars = line.match(/\[([█░]+)\]/g) ?? [];
    expect(bars).toHaveLength(2);
    // 4 of 6 and 25%: the first bar is two thirds full, the second a quarter.
    const [jobs, budget] = bars.map((b) => ({ full: b.split('█').length - 1, cells: b.length - 2 }));
    expect(Math.abs((jobs?.full ?? 0) / (jobs?.cells ?? 1) - 4 / 6)).toBeLessThan(0.05);
    expect(Math.abs((budget?.full ?? 0) / (budget?.cells ?? 1) - 0.25)).toBeLessThan(0.05);

    const noBudget = summaryOf(everyState(), { spentUsd: 2.5 });
    expect(segmentsText(progressSegments(batchProgress(noBudget), 100))).toMatch(
      /^jobs \[[█░]+\] 4\/6 done {3}\$2\.50 spent$/,
    );
  });

  it('at 40 columns drops the bars and says the spend in figures', () => {
    const summary = summaryOf(everyState(), { budget: { maxCostUsd: 5 }, spentUsd: 4.1 });
    const line = segmentsText(progressSegments(batchProgress(summary), 40));
    expect(line).toBe('jobs 4/6 done   $4.10/$5.00 (82%)');
  });

  it('a bar is full only at the end and empty only at the start', () => {
    expect(filled(0, 12)).toBe(0);
    expect(filled(1 / 300, 12)).toBe(1);
    expect(filled(299 / 300, 12)).toBe(9);
    expect(filled(1, 12)).toBe(10);
    expect(filled(1.3, 12)).toBe(10);
    expect(filled(0.5, 12)).toBe(5);
  });
});
