import { describe, expect, it } from 'vitest';
import { summaryMarkdown } from '../../../../src/clients/batch/results/markdown.ts';
import { job, metrics, summary } from './summaries.ts';

/** The cells of a Markdown table row, split where GFM splits them: at pipes no backslash escapes. */
function cells(line: string): string[] {
  const inner = line.trim().replace(/^\|/, '').replace(/\|$/, '');
  const out: string[] = [''];
  for (let i = 0; i < inner.length; i++) {
    const c = inner[i] as string;
    if (c === '\\' && i + 1 < inner.length) {
      out[out.length - 1] += c + inner[i + 1];
      i += 1;
    } else if (c === '|') out.push('');
    else out[out.length - 1] += c;
  }
  return out.map((cell) => cell.trim());
}

describe('summaryMarkdown', () => {
  it('counts and total cost on top, then a row per job: id, state, codons, cost, time, reason', () => {
    const md = summaryMarkdown(
      summary(
        [
          job('ok', { durationMs: 61_000, metrics: metrics({ costUsd: 0.25 }) }),
          job('broke', {
            state: 'failed',
            durationMs: 2_500,
            metrics: metrics({
              codonsDone: 1,
              costUsd: 1.5,
              failure: { codonId: 'build', reason: 'verify', message: 'gate 1 failed' },
            }),
          }),
          job('late', {
            state: 'skipped',
            reason: 'the batch budget is spent',
            metrics: undefined,
            durationMs: undefined,
          }),
        ],
        { budget: { maxCostUsd: 5 } },
      ),
    );
    const lines = md.split('\n');
    expect(lines[0]).toBe('# Batch nightly');
    expect(lines[2]).toBe(
      '**finished** · 3 jobs: 1 passed, 1 failed, 1 skipped · total cost $1.75 of $5.00 · 1h00m',
    );
    const table = lines.filter((l) => l.startsWith('|'));
    expect(table.map(cells)).toEqual([
      ['job', 'state', 'codons', 'cost', 'time', 'reason'],
      ['---', '---', '---:', '---:', '---:', '---'],
      ['ok', 'passed', '2/2', '$0.2500', '1m01s', ''],
      ['broke', 'failed', '1/2', '$1.50', '2.5s', 'codon build failed (verify): gate 1 failed'],
      ['late', 'skipped', '', '', '', 'the batch budget is spent'],
    ]);
    expect(md).not.toContain('~');
  });

  it('a cell holds pipes, backslashes, line breaks and HTML of the batch without breaking the table', () => {
    const md = summaryMarkdown(
      summary([job('a|b\\', { state: 'failed', reason: 'one | two\nthree\\| <b>four</b>\r\n' })]),
    );
    const row = md.split('\n').filter((l) => l.startsWith('|'))[2] ?? '';
    expect(cells(row)).toEqual([
      'a\\|b\\\\',
      'failed',
      '2/2',
      '$0.5000',
      '1m00s',
      'one \\| two three\\\\\\| &lt;b&gt;four&lt;/b&gt;',
    ]);
  });

  it('marks a total partly estimated, with the legend', () => {
    const md = summaryMarkdown(summary([job('a', { metrics: metrics({ costEstimated: true }) })]));
    expect(md).toContain('total cost ~$0.5000');
    expect(md).toContain('| ~$0.5000 |');
    expect(md.trimEnd().split('\n').at(-1)).toMatch(/^~ marks an estimate/);
  });
});
