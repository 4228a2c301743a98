import { describe, expect, it } from 'vitest';
import { fleetOf } from '../../../../src/clients/batch/fleet/fleet.ts';
import { BatchFleet } from '../../../../src/clients/batch/fleet/fleet-schema.ts';
import { isBatchFleet } from '../../../../src/clients/batch/fleet/fleet-shape.ts';
import { batchSummary, jobResult, metrics } from '../../../helpers/batch-summary.ts';

const DIR = '/batches/nightly';
const NOW = Date.parse('2025-01-01T12:00:00.000Z');
const live = (execution: string) => (execution.endsWith('/a') ? 'ws://127.0.0.1:4101' : undefined);

describe("the page's check of config.json's batch (no zod in the page)", () => {
  const fleets = [
    fleetOf(
      DIR,
      {
        kind: 'summary',
        summary: batchSummary(DIR, [
          jobResult(0, 'a', 'running', { metrics: metrics(1, 3, 0.25, { currentCodon: 'build' }) }),
          jobResult(1, 'b', 'passed', { reason: 'every codon passed' }),
        ]),
      },
      live,
      NOW,
    ),
    fleetOf(DIR, { kind: 'record', jobs: [{ id: 'x', index: 0 }], problem: 'no summary yet' }, live, NOW),
    fleetOf(DIR, { kind: 'nothing', problem: 'no summary' }, live, NOW),
  ];

  it('takes every fleet the server makes (as BatchFleet does)', () => {
    for (const fleet of fleets) {
      expect(BatchFleet.safeParse(fleet).success).toBe(true);
      expect(isBatchFleet(JSON.parse(JSON.stringify(fleet)))).toBe(true);
    }
  });

  it('refuses one whose fields the page reads are missing or of another kind', () => {
    const fleet = JSON.parse(JSON.stringify(fleets[0])) as Record<string, unknown> & { jobs: object[] };
    const job = fleet.jobs[0]!;
    const spoilt = [
      null,
      [],
      'fleet',
      { ...fleet, jobs: undefined },
      { ...fleet, jobs: {} },
      { ...fleet, name: 5 },
      { ...fleet, spentUsd: '0.25' },
      { ...fleet, counts: { running: 'one' } },
      { ...fleet, jobs: [null] },
      { ...fleet, jobs: [{ ...job, id: 7 }] },
      { ...fleet, jobs: [{ ...job, index: 0.5 }] },
      { ...fleet, jobs: [{ ...job, axes: { model: 1 } }] },
      { ...fleet, jobs: [{ ...job, url: 4101 }] },
      { ...fleet, jobs: [{ ...job, metrics: 'many' }] },
    ];
    for (const value of spoilt) {
      expect(BatchFleet.safeParse(value).success).toBe(false);
      expect(isBatchFleet(value)).toBe(false);
    }
  });
});
