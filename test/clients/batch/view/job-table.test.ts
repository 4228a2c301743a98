import { describe, expect, it } from 'vitest';
import { MARK_WIDTH, tableLines, tableRows } from '../../../../src/clients/batch/view/job-table.ts';
import { event, everyState, job, metrics, NOW, summaryOf } from './helpers/summaries.ts';

const chars = (text: string) => Array.from(text).length;

/** ESC, BEL and every other C0 control, C1 controls, bidi controls: none may reach the terminal. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const RAW = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

describe('the batch table’s rows', () => {
  it('at 80 columns: every column, the state in words, a row per job in job order', () => {
    const table = tableRows(summaryOf(everyState()), NOW, 80);
    expect(table.columns).toEqual(['state', 'job', 'codons', 'cost', 'elapsed', 'event']);
    expect(table.rows.map((r) => r.id)).toEqual(['job-0', 'job-1', 'job-2', 'job-3', 'job-4', 'job-5']);
    const [passed, running, failed, pending, skipped, infra] = table.rows.map((r) => r.text);
    expect(passed).toMatch(/^✓ passed\s+job-0\s+3\/3\s+\$0\.0604\s+01:05 plan done$/);
    // A running job's time runs from its start to now (2 min 30 s); its last event is the newest.
    expect(running).toMatch(/^▶ running\s+job-1\s+1\/3\s+\$1\.50\s+02:30 build: Bash npm test$/);
    // An ended one says why it ended, over its last event.
    expect(failed).toMatch(/^✗ failed\s+job-2\s+1\/3\s+\$2\.25\s+1:01:40 codon build failed: gate 1/);
    expect(pending).toMatch(/^· pending\s+job-3\s+-\s+-\s+-$/);
    expect(skipped).toMatch(/ - the batch budget is spent$/);
    expect(infra).toMatch(/^! infra\s+job-5 .*00:04 its run exited 3 after 2 starts$/);
    expect(table.header).toMatch(/^state\s+job\s+codons\s+cost\s+elapsed last event$/);
  });

  it.each([40, 80, 160])('no row is wider than %i columns, the selection mark included', (width) => {
    const long = everyState().map((j) => ({
      ...j,
      id: `${j.id}.a-very-long-matrix-id.claude-code.claude-sonnet-4-5.repeat-12`,
      metrics: metrics({ costUsd: 123.45, lastEvent: event('x'.repeat(300)) }),
    }));
    const table = tableRows(summaryOf(long), NOW, width);
    for (const line of tableLines(table, long[1]?.id)) expect(chars(line.text)).toBeLessThanOrEqual(width);
    expect(chars(table.header) + MARK_WIDTH).toBeLessThanOrEqual(width);
    // Cut cells end with an ellipsis, so a cut id never reads as another one.
    expect(table.rows[0]?.text).toContain('…');
  });

  it('at 40 columns: the state as its icon, the last event left out; the id, codons, cost and time stay', () => {
    const table = tableRows(summaryOf(everyState()), NOW, 40);
    expect(table.columns).toEqual(['state', 'job', 'codons', 'cost', 'elapsed']);
    expect(table.rows[1]?.text).toMatch(/^▶ job-1\s+1\/3\s+\$1\.50\s+02:30$/);
    expect(table.rows.map((r) => r.text.at(0))).toEqual(['✓', '▶', '✗', '·', '↷', '!']);
  });

  it('at 160 columns a long id shows whole, and the last event gets the room left', () => {
    const id = 'repo-with-a-long-name@main.claude-code.claude-sonnet-4-5.3';
    const text = 'codon build: Bash npm test -- --coverage in packages/core';
    const table = tableRows(
      summaryOf([job(0, 'running', { id, metrics: metrics({ lastEvent: event(text) }) })]),
      NOW,
      160,
    );
    expect(table.rows[0]?.text).toContain(id);
    expect(table.rows[0]?.text.endsWith(text)).toBe(true);
  });

  it('narrower still: the optional columns go, elapsed first, and the id keeps some room', () => {
    const table = tableRows(summaryOf(everyState()), NOW, 20);
    expect(table.columns).toEqual(['state', 'job', 'codons']);
    expect(table.rows[1]?.text).toMatch(/^▶ job-1\s+1\/3$/);
  });

  it('keeps job order however the summary lists them and whatever runs: no running-first sort', () => {
    const jobs = everyState();
    const shuffled = [jobs[4], jobs[1], jobs[5], jobs[0], jobs[3], jobs[2]].flatMap((j) => (j ? [j] : []));
    const table = tableRows(summaryOf(shuffled), NOW, 80);
    expect(table.rows.map((r) => r.index)).toEqual([0, 1, 2, 3, 4, 5]);
  });

  it('shows hostile ids and events as inert stand-ins, and the selection still finds its job by its id', () => {
    const evil = 'x\u001b]0;pwned\u0007\u001b[2J\u202eevil';
    const jobs = [
      job(0, 'passed'),
      job(1, 'running', {
        id: evil,
        url: 'ws://127.0.0.1:1',
        metrics: metrics({ lastEvent: event('Bash \u001b]52;c;cm0gLXJm\u0007 rm\r\nrf\u009b') }),
      }),
    ];
    const table = tableRows(summaryOf(jobs), NOW, 160);
    const lines = tableLines(table, evil);
    for (const line of lines) expect(line.text).not.toMatch(RAW);
    expect(lines[1]?.text).toContain('x␛]0;pwned␇␛[2J<U+202E>evil');
    expect(lines[1]?.text).toContain('Bash ␛]52;c;cm0gLXJm␇ rm rf<U+009B>');
    expect(lines[1]).toMatchObject({ highlight: true });
    expect(lines[1]?.text.startsWith('› ')).toBe(true);
    expect(lines[0]?.text.startsWith('  ')).toBe(true);
  });

  it('marks an estimated cost, and knows no total of codons yet as ?', () => {
    const table = tableRows(
      summaryOf([
        job(0, 'running', { metrics: metrics({ costUsd: 0.5, costEstimated: true, codonsTotal: null }) }),
      ]),
      NOW,
      80,
    );
    expect(table.rows[0]?.text).toMatch(/0\/\?\s+~\$0\.5000/);
  });
});
