import { describe, expect, it } from 'vitest';
import type { BatchFleet, FleetJob } from '../../../../src/clients/batch/fleet/fleet-schema.ts';
import { batchHeader, batchRow } from '../../../../src/clients/web/model/batch-rows.ts';
import { metrics } from '../../../helpers/batch-summary.ts';

const job = (extra: Partial<FleetJob>): FleetJob => ({
  id: 'j',
  index: 0,
  state: 'running',
  execution: '/b/jobs/j',
  axes: {},
  ...extra,
});

describe("a batch's fleet rows", () => {
  it('a running job: codon n/m and the current one, cost, elapsed, last event, and open', () => {
    const row = batchRow(
      job({
        url: 'ws://127.0.0.1:4100',
        elapsedMs: 65_000,
        metrics: metrics(2, 5, 0.0123, {
          currentCodon: 'build',
          costEstimated: true,
          lastEvent: {
            type: 'agent.message',
            at: '2025-01-01T00:00:00.000Z',
            text: 'build: running npm test',
          },
        }),
      }),
    );
    expect(row).toMatchObject({
      state: 'running',
      tone: 'accent',
      codons: '2/5',
      currentCodon: 'build',
      cost: '~$0.0123',
      elapsed: '1 m 5 s',
      lastEvent: 'build: running npm test',
      action: { kind: 'open' },
    });
  });

  it('a job without a server says why, and how to see an ended one', () => {
    expect(batchRow(job({ state: 'pending' }))).toMatchObject({
      tone: 'muted',
      codons: '—',
      cost: '—',
      elapsed: '—',
      lastEvent: '—',
      action: { kind: 'hint', text: 'not started' },
    });
    expect(batchRow(job({ state: 'running' })).action).toEqual({ kind: 'hint', text: 'no live server yet' });
    const failed = batchRow(job({ state: 'failed', metrics: metrics(1, null, 0), reason: 'codon x failed' }));
    expect(failed).toMatchObject({ tone: 'bad', codons: '1/?', cost: '$0', reason: 'codon x failed' });
    expect(failed.currentCodon).toBeUndefined();
    expect(failed.action).toEqual({
      kind: 'hint',
      text: 'ended: see it with',
      command: 'ribosome log --execution /b/jobs/j',
    });
    expect(batchRow(job({ state: 'passed' })).tone).toBe('ok');
    expect(batchRow(job({ state: 'skipped' }))).toMatchObject({
      tone: 'warn',
      action: { kind: 'hint', text: 'never ran' },
    });
  });

  it('the header: name, state, counts of the states that have jobs, spend against the budget', () => {
    const fleet: BatchFleet = {
      name: 'nightly',
      dir: '/b',
      state: 'running',
      spentUsd: 1.5,
      budget: { maxCostUsd: 5 },
      counts: { pending: 3, running: 2, passed: 1, failed: 0, skipped: 0, 'infra-failed': 1 },
      jobs: [],
    };
    expect(batchHeader(fleet)).toEqual({
      title: 'batch nightly',
      state: 'running',
      counts: '2 running · 3 pending · 1 passed · 1 infra-failed',
      spend: '$1.50 of $5.00',
    });
    expect(batchHeader({ ...fleet, budget: undefined, counts: {}, spentUsd: 0 })).toMatchObject({
      counts: 'no job',
      spend: '$0',
    });
  });
});
