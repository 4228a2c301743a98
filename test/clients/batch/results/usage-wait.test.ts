import { describe, expect, it } from 'vitest';
import { metricsOf } from '../../../../src/clients/batch/results/job-metrics.ts';
import { emptyTally, foldJob } from '../../../../src/clients/batch/results/job-tally.ts';
import { tableRows } from '../../../../src/clients/batch/view/job-table.ts';
import { makeEvent } from '../../../../src/core/protocol/index.ts';
import { job, metrics, NOW, summaryOf } from '../view/helpers/summaries.ts';

/** A batch's job whose run waits for a usage limit: its metrics say so, and its row counts it down. */

const RESET = new Date(NOW.getTime() + 2 * 3_600_000 + 13 * 60_000);
const WAIT = {
  codonId: 'build',
  agent: 'codex',
  resetsAt: RESET.toISOString(),
  until: new Date(RESET.getTime() + 60_000).toISOString(),
};
const waiting = makeEvent('usageLimit.waiting', {
  ...WAIT,
  waitMs: 8_040_000,
  message: 'build waits for the usage limit of codex to reset',
});
const started = makeEvent('codon.started', {
  codonId: 'build',
  codonName: 'build',
  sessionId: 's',
  startTime: new Date().toISOString(),
});

describe("a batch job's usage-limit wait", () => {
  it('the metrics carry the wait, and the last event says it; a codon starting ends it', () => {
    const tally = foldJob(emptyTally(), [started, waiting]);
    const during = metricsOf(undefined, tally, 3);
    expect(during.usageWait).toEqual(WAIT);
    expect(during.lastEvent).toMatchObject({
      type: 'usageLimit.waiting',
      text: expect.stringMatching(
        /^◷ build waits for the usage limit of codex to reset at .+, then starts again at /,
      ),
    });
    const after = metricsOf(undefined, foldJob(tally, [started]), 3);
    expect(after.usageWait).toBeUndefined();
  });

  it("the table's last column of a running job counts the wait down", () => {
    const running = job(1, 'running', { metrics: metrics({ usageWait: WAIT }) });
    const table = tableRows(summaryOf([running]), NOW, 160);
    expect(table.rows[0]?.text).toMatch(
      /build: waiting for the usage limit of codex to reset at (?:[A-Z][a-z]{2} )?\d\d:\d\d; starts again at (?:[A-Z][a-z]{2} )?\d\d:\d\d \(in 2 h 14 m\)$/,
    );
    // An ended job says why it ended, not a wait its summary may still hold.
    const ended = job(2, 'failed', { reason: 'codon build failed', metrics: metrics({ usageWait: WAIT }) });
    expect(tableRows(summaryOf([ended]), NOW, 160).rows[0]?.text).toMatch(/codon build failed$/);
  });
});
