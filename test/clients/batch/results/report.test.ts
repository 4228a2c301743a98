import { describe, expect, it } from 'vitest';
import { compareJobs } from '../../../../src/clients/batch/results/compare.ts';
import { reportHtml } from '../../../../src/clients/batch/results/report-html.ts';
import { reportMarkdown } from '../../../../src/clients/batch/results/report-md.ts';
import type { JobResult } from '../../../../src/clients/batch/summary-schema.ts';
import { job, metrics, summary } from './summaries.ts';

const HOSTILE_ID = `x"><script>alert(1)</script><img src=http://evil.example/a.png>&amp;\u0000`;

const matrixJob = (
  id: string,
  axes: Record<string, string>,
  cost: number,
  durationMs: number,
  state: JobResult['state'] = 'passed',
) =>
  job(id, {
    axes,
    state,
    durationMs,
    metrics: metrics({
      costUsd: cost,
      outputTokens: cost * 1_000,
      gatedCodons: 1,
      gatesFirstTry: state === 'passed' ? 1 : 0,
    }),
  });

const jobs = [
  matrixJob('opus-1', { agent: 'claude-code', model: 'opus', repeat: '1' }, 1, 60_000),
  matrixJob('opus-2', { agent: 'claude-code', model: 'opus', repeat: '2' }, 3, 120_000, 'failed'),
  matrixJob('opus-3', { agent: 'claude-code', model: 'opus', repeat: '3' }, 2, 90_000),
  matrixJob('opus-4', { agent: 'claude-code', model: 'opus', repeat: '4' }, 4, 30_000),
  matrixJob(
    HOSTILE_ID,
    { agent: 'codex', model: `gpt<b>|"\u0000`, repeat: '1' },
    0.5,
    10_000,
    'infra-failed',
  ),
];
const batch = summary(jobs, { name: 'compare<me>' });

/** The text of an HTML fragment as a browser shows it (tags dropped, the entities used here decoded). */
const shown = (fragment: string) =>
  fragment
    .replace(/<[^>]*>/g, '')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&');

/** The table's rows, each a list of its cells' text. */
function tableRows(page: string): string[][] {
  const body = /<tbody>([\s\S]*?)<\/tbody>/.exec(page)?.[1] ?? '';
  return [...body.matchAll(/<tr>([\s\S]*?)<\/tr>/g)].map((row) =>
    [...(row[1] ?? '').matchAll(/<t[hd][^>]*>([\s\S]*?)<\/t[hd]>/g)].map((cell) => shown(cell[1] ?? '')),
  );
}

describe('the comparison report', () => {
  const page = reportHtml(batch);

  it('HTML: one file that loads nothing: no script, no address, no external reference', () => {
    const plain = reportHtml(summary(jobs.slice(0, 4)));
    expect(plain).not.toMatch(/<script/i);
    expect(plain).not.toMatch(/https?:/i);
    expect(plain).not.toMatch(/\b(?:src|href|xmlns)=/i);
    expect(plain).not.toMatch(/@import|url\(/i);
    expect(plain).toMatch(/<style>[\s\S]*@media \(prefers-color-scheme: dark\)/);
    expect(plain.match(/<svg /g)).toHaveLength(3);
  });

  it('HTML: every text from the batch escaped, in the table and in the charts', () => {
    expect(page).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(page).toContain('&amp;amp;');
    expect(page).not.toMatch(/<script|<img/i);
    expect(page).not.toContain('\u0000');
    expect(page).toContain('gpt&lt;b&gt;|&quot;␀');
    expect(page).toContain('<title>Batch compare&lt;me&gt;: comparison</title>');
    // The hostile id is a dot's tooltip in both strip charts, escaped.
    expect(page.split(`${shown(HOSTILE_ID)}`).length).toBe(1);
    expect(page.match(/x&quot;&gt;&lt;script&gt;/g)?.length).toBe(2);
  });

  it("HTML: the table's numbers are compare.ts's", () => {
    const [opus, codex] = compareJobs(batch.jobs).groups;
    expect(opus?.costUsd).toEqual({ n: 4, min: 1, median: 2.5, max: 4, p25: 1.75, p75: 3.25 });
    expect(tableRows(page)).toEqual([
      [
        'claude-code',
        'opus',
        '4',
        '3/4',
        '75%',
        '3/4 (75%)',
        '$2.50 ($1.00–$4.00) [$1.75–$3.25]',
        '1m15s (30.0s–2m00s) [52.5s–1m37s]',
        '2.5k (1.0k–4.0k) [1.8k–3.3k]',
        '0',
        '0',
        '0',
        '0',
      ],
      ['codex', 'gpt<b>|"␀', '1', '0/0', '–', '0/1 (0%)', '$0.5000', '10.0s', '500', '1', '0', '0', '0'],
    ]);
    expect(codex?.successRate).toBeNull();
  });

  it('Markdown: the same table, its cells escaped', () => {
    const md = reportMarkdown(batch);
    const lines = md.split('\n');
    expect(lines[0]).toBe('# Batch compare&lt;me&gt;: comparison');
    expect(lines[2]).toBe(
      '5 jobs in 2 groups, by agent, model; the repeats of a combination are its samples.',
    );
    expect(lines[4]).toBe(
      '| agent | model | jobs | passed | success | gates first try | cost | time | output tokens | infra-failed | retries | rollbacks | sentinel actions |',
    );
    expect(lines[6]).toBe(
      '| claude-code | opus | 4 | 3/4 | 75% | 3/4 (75%) | $2.50 ($1.00–$4.00) [$1.75–$3.25] | 1m15s (30.0s–2m00s) [52.5s–1m37s] | 2.5k (1.0k–4.0k) [1.8k–3.3k] | 0 | 0 | 0 | 0 |',
    );
    expect(lines[7]).toBe(
      '| codex | gpt&lt;b&gt;\\|"␀ | 1 | 0/0 | – | 0/1 (0%) | $0.5000 | 10.0s | 500 | 1 | 0 | 0 | 0 |',
    );
  });

  it('a job listed by hand is named in its row; an estimated cost keeps its ~; no quartiles, no word of them', () => {
    const listed = job('hand-made', {
      state: 'passed',
      durationMs: 5_000,
      metrics: metrics({ costUsd: 0.25, costEstimated: true }),
    });
    const md = reportMarkdown(summary([matrixJob('m1', { agent: 'codex', model: 'o' }, 1, 1_000), listed]));
    const rows = md.split('\n').filter((l) => l.startsWith('| job hand-made |'));
    expect(rows).toHaveLength(1);
    expect(rows[0]).toContain('| ~$0.2500 |');
    expect(md).not.toContain('p25');
    expect(md).toContain('~: part of the cost is an estimate.');
  });

  it('pooled workspaces: no workspace column, one group across them', () => {
    const spread = summary([
      matrixJob('a', { workspace: '/r/one', model: 'm' }, 1, 1_000),
      matrixJob('b', { workspace: '/r/two', model: 'm' }, 3, 3_000),
    ]);
    expect(tableRows(reportHtml(spread)).map((r) => r.slice(0, 3))).toEqual([
      ['/r/one', 'm', '1'],
      ['/r/two', 'm', '1'],
    ]);
    expect(tableRows(reportHtml(spread, { poolWorkspaces: true })).map((r) => r.slice(0, 2))).toEqual([
      ['m', '2'],
    ]);
    expect(reportMarkdown(spread, { poolWorkspaces: true })).toContain('by model (workspaces pooled)');
  });
});
