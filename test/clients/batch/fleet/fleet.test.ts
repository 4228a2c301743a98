import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { fleetOf, ticketTarget } from '../../../../src/clients/batch/fleet/fleet.ts';
import { BatchFleet } from '../../../../src/clients/batch/fleet/fleet-schema.ts';
import { fleetSource } from '../../../../src/clients/batch/fleet/fleet-source.ts';
import { notRunningMessage, shellWord } from '../../../../src/clients/batch/fleet/job-words.ts';
import { batchSummary, jobResult, metrics, writeSummary } from '../../../helpers/batch-summary.ts';

const DIR = '/batches/nightly';
const NOW = Date.parse('2025-01-01T12:00:00.000Z');
/** A stand-in for the runtime locks: the executions that have a live server, and their address. */
const livePorts = (ports: Record<string, number>) => {
  const asked: string[] = [];
  const live = (execution: string) => {
    asked.push(execution);
    const port = ports[execution];
    return port === undefined ? undefined : `ws://127.0.0.1:${port}`;
  };
  return { live, asked };
};

const temps: string[] = [];
afterAll(() => {
  for (const t of temps) rmSync(t, { recursive: true, force: true });
});
function batchDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'ribosome-fleet-'));
  temps.push(dir);
  return dir;
}

describe('the fleet of a batch', () => {
  const summary = batchSummary(DIR, [
    // Out of order on purpose: the fleet is in job order, whatever the file's.
    jobResult(2, 'c', 'pending'),
    jobResult(0, 'a', 'running', {
      startedAt: '2025-01-01T11:59:30.000Z',
      metrics: metrics(1, 3, 0.25, { currentCodon: 'build' }),
    }),
    jobResult(1, 'b', 'passed', {
      startedAt: '2025-01-01T11:00:00.000Z',
      endedAt: '2025-01-01T11:10:00.000Z',
      durationMs: 590_000,
      reason: 'every codon passed',
      exitCode: 0,
    }),
    jobResult(3, 'd', 'failed', {
      startedAt: '2025-01-01T11:00:00.000Z',
      endedAt: '2025-01-01T11:05:00.000Z',
      reason: 'codon build failed: gate 1 (npm test) failed',
    }),
  ]);

  it('lists every job in job order, with its live address only while its server runs', () => {
    const { live, asked } = livePorts({ [`${DIR}/jobs/a`]: 4101, [`${DIR}/jobs/b`]: 4102 });
    const fleet = fleetOf(DIR, { kind: 'summary', summary }, live, NOW);
    expect(BatchFleet.parse(fleet)).toEqual(fleet);
    expect(fleet.jobs.map((j) => [j.index, j.id, j.state, j.url])).toEqual([
      [0, 'a', 'running', 'ws://127.0.0.1:4101'],
      // b's lock says a server runs, but b has passed: only running jobs are looked up (and opened).
      [1, 'b', 'passed', undefined],
      [2, 'c', 'pending', undefined],
      [3, 'd', 'failed', undefined],
    ]);
    expect(asked).toEqual([`${DIR}/jobs/a`]);
    expect(fleet).toMatchObject({ name: 'fleet-test', dir: DIR, state: 'running', spentUsd: 0.25 });
    expect(fleet.counts).toMatchObject({ running: 1, passed: 1, pending: 1, failed: 1, skipped: 0 });
    expect(fleet.problem).toBeUndefined();
  });

  it('elapsed: since its start while it runs, its runs’ wall time once ended, from start to end without one', () => {
    const fleet = fleetOf(DIR, { kind: 'summary', summary }, () => undefined, NOW);
    expect(fleet.jobs.map((j) => j.elapsedMs)).toEqual([30_000, 590_000, undefined, 300_000]);
  });

  it('finds executions under the batch directory it was given, never outside it', () => {
    const moved = batchSummary('/elsewhere/when/written', [
      jobResult(0, 'a', 'running'),
      jobResult(1, 'b', 'running', { execution: '../../etc' }),
      jobResult(2, 'c', 'running', { execution: '/etc' }),
    ]);
    const { live, asked } = livePorts({});
    fleetOf(DIR, { kind: 'summary', summary: moved }, live, NOW);
    expect(asked).toEqual([`${DIR}/jobs/a`, `${DIR}/jobs/b`, `${DIR}/jobs/c`]);
  });

  it('without a summary: the jobs the batch record lists, of unknown state, each looked up; or none; and why', () => {
    const { live } = livePorts({ [`${DIR}/jobs/y`]: 4200 });
    const fleet = fleetOf(
      DIR,
      {
        kind: 'record',
        jobs: [
          { id: 'y', index: 1 },
          { id: 'x', index: 0 },
        ],
        problem: 'summary.json is not there yet',
      },
      live,
      NOW,
    );
    expect(fleet.jobs.map((j) => [j.id, j.state, j.url])).toEqual([
      ['x', 'unknown', undefined],
      ['y', 'unknown', 'ws://127.0.0.1:4200'],
    ]);
    expect(fleet).toMatchObject({ name: 'nightly', state: 'unknown', counts: { unknown: 2 } });
    expect(fleet.problem).toBe('summary.json is not there yet');
    const empty = fleetOf(DIR, { kind: 'nothing', problem: 'no summary' }, live, NOW);
    expect(empty).toMatchObject({ name: 'nightly', jobs: [], counts: {}, problem: 'no summary' });
  });
});

describe("a page's ticket for a job", () => {
  const fleet = fleetOf(
    DIR,
    {
      kind: 'summary',
      summary: batchSummary(DIR, [
        jobResult(0, 'a', 'running'),
        jobResult(1, 'b', 'passed', { reason: 'every codon passed' }),
        jobResult(2, 'c', 'running'),
      ]),
    },
    livePorts({ [`${DIR}/jobs/a`]: 4101 }).live,
    NOW,
  );

  it('is asked of the server that runs the job now', () => {
    expect(ticketTarget(fleet, 0, 'a')).toEqual({ ok: true, url: 'ws://127.0.0.1:4101' });
    expect(ticketTarget(fleet, 0, undefined)).toEqual({ ok: true, url: 'ws://127.0.0.1:4101' });
  });

  it('is refused (409) for a job without a server, saying how it went and what shows its record', () => {
    expect(ticketTarget(fleet, 1, 'b')).toEqual({
      ok: false,
      refusal: 'not_running',
      message: `job b is not running: it passed (every codon passed); see it with \`ribosome log --execution ${DIR}/jobs/b\``,
    });
    const starting = ticketTarget(fleet, 2, 'c');
    expect(starting).toMatchObject({ ok: false, refusal: 'not_running' });
    if (!starting.ok) expect(starting.message).toContain('job c has no live server right now');
  });

  it('is refused (404) for an index no job has, or a job the list no longer has there', () => {
    expect(ticketTarget(fleet, 7, undefined)).toEqual({
      ok: false,
      refusal: 'unknown_server',
      message: 'batch fleet-test has no job 7; reload the page to see its jobs',
    });
    expect(ticketTarget(fleet, 0, 'b')).toEqual({
      ok: false,
      refusal: 'unknown_server',
      message: 'batch fleet-test has no job "b" at index 0 (job 0 is "a"); reload the page to see its jobs',
    });
  });

  it('says of each state why there is no server', () => {
    const job = (state: BatchFleet['jobs'][number]['state'], reason?: string) =>
      notRunningMessage({
        id: 'j',
        index: 0,
        state,
        execution: '/b/jobs/j',
        axes: {},
        ...(reason ? { reason } : {}),
      });
    expect(job('pending')).toBe('job j is not running: it has not started yet');
    expect(job('skipped', 'the batch budget is spent')).toBe(
      'job j is not running: it was skipped (the batch budget is spent)',
    );
    expect(job('failed', 'codon x failed')).toBe(
      'job j is not running: it failed (codon x failed); see it with `ribosome log --execution /b/jobs/j`',
    );
    expect(job('infra-failed')).toBe(
      'job j is not running: it failed to run; see it with `ribosome log --execution /b/jobs/j`',
    );
    expect(job('unknown')).toBe(
      'job j is not running (summary.json does not say how it went); see it with `ribosome log --execution /b/jobs/j`',
    );
  });

  it('names a path as one shell word', () => {
    expect(shellWord('/b/jobs/j-1.x')).toBe('/b/jobs/j-1.x');
    expect(shellWord("/my batches/it's")).toBe(`'/my batches/it'\\''s'`);
  });
});

describe('reading a batch directory', () => {
  const none = () => undefined;

  it('reads summary.json again when it changes', async () => {
    const dir = batchDir();
    writeSummary(dir, batchSummary(dir, [jobResult(0, 'a', 'running')]));
    const source = fleetSource(dir, { live: none });
    expect((await source.read()).jobs.map((j) => j.id)).toEqual(['a']);
    writeSummary(dir, batchSummary(dir, [jobResult(0, 'a', 'passed'), jobResult(1, 'b', 'running')]));
    const again = await source.read();
    expect(again.jobs.map((j) => [j.id, j.state])).toEqual([
      ['a', 'passed'],
      ['b', 'running'],
    ]);
    expect(again.problem).toBeUndefined();
  });

  it('a half-written or foreign summary.json: the last good one, and why', async () => {
    const dir = batchDir();
    writeSummary(dir, batchSummary(dir, [jobResult(0, 'a', 'running')]));
    const source = fleetSource(dir, { live: none });
    await source.read();
    writeFileSync(join(dir, 'summary.json'), '{"name": "fleet-test", "jobs": [');
    const half = await source.read();
    expect(half.jobs.map((j) => j.id)).toEqual(['a']);
    expect(half.problem).toMatch(
      /^summary\.json is not a batch summary \(not JSON: .*\); showing it as last read$/,
    );
    writeFileSync(join(dir, 'summary.json'), '{"name": 3}');
    expect((await source.read()).problem).toMatch(/^summary\.json is not a batch summary \(.*name/);
  });

  it('without summary.json: the jobs batch.json lists, else none; and why', async () => {
    const dir = batchDir();
    const source = fleetSource(dir, { live: none });
    const nothing = await source.read();
    expect(nothing.jobs).toEqual([]);
    expect(nothing.problem).toBe(
      'summary.json is not there yet (the batch has not started, or was made elsewhere)',
    );
    writeFileSync(
      join(dir, 'batch.json'),
      JSON.stringify({ name: 'recorded', jobs: [{ id: 'x', index: 0, plan: '/p.yaml' }] }),
    );
    const recorded = await source.read();
    expect(recorded).toMatchObject({ name: 'recorded', state: 'unknown' });
    expect(recorded.jobs.map((j) => [j.id, j.state])).toEqual([['x', 'unknown']]);
    expect(recorded.problem).toContain('the jobs are those batch.json lists, their states unknown');
  });

  it('a summary.json it cannot read (a directory in its place) is said so, not thrown', async () => {
    const dir = batchDir();
    mkdirSync(join(dir, 'summary.json'));
    const fleet = await fleetSource(dir, { live: none }).read();
    expect(fleet.jobs).toEqual([]);
    expect(fleet.problem).toMatch(/^summary\.json cannot be read: /);
  });
});
