import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { batchLayout } from '../../../../src/clients/batch/layout.ts';
import {
  junitXml,
  reportHtml,
  reportMarkdown,
  summaryMarkdown,
  writeResults,
} from '../../../../src/clients/batch/results/index.ts';
import { job, summary } from './summaries.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
function layout() {
  const dir = mkdtempSync(join(tmpdir(), 'ribosome-test-write-results-'));
  dirs.push(dir);
  return batchLayout(join(dir, 'nightly'));
}

const batch = summary([
  job('a', { axes: { model: 'm', repeat: '1' } }),
  job('b', { axes: { model: 'm', repeat: '2' }, state: 'failed' }),
]);

describe('writeResults', () => {
  it('a batch without a matrix: summary.md and junit.xml, whole, and nothing else', async () => {
    const l = layout();
    expect(await writeResults(l, batch, { matrix: false })).toEqual([l.summaryMarkdown, l.junit]);
    expect(readdirSync(l.dir).sort()).toEqual(['junit.xml', 'summary.md']);
    expect(readFileSync(l.summaryMarkdown, 'utf8')).toBe(summaryMarkdown(batch));
    expect(readFileSync(l.junit, 'utf8')).toBe(junitXml(batch));
  });

  it('a matrix: the comparison report too, grouped as asked; files there before are replaced', async () => {
    const l = layout();
    mkdirSync(l.dir, { recursive: true });
    writeFileSync(l.reportHtml, 'an older report, longer than it will be '.repeat(1_000));
    await writeResults(l, batch, { matrix: true, compare: { poolWorkspaces: true } });
    expect(readdirSync(l.dir).sort()).toEqual(['junit.xml', 'report.html', 'report.md', 'summary.md']);
    expect(readFileSync(l.reportHtml, 'utf8')).toBe(reportHtml(batch, { poolWorkspaces: true }));
    expect(readFileSync(l.reportMarkdown, 'utf8')).toBe(reportMarkdown(batch, { poolWorkspaces: true }));
  });

  it('a file that cannot be written fails the call and leaves no temp file behind', async () => {
    const l = layout();
    // A folder where junit.xml goes: the rename over it fails.
    mkdirSync(join(l.junit, 'inside'), { recursive: true });
    await expect(writeResults(l, batch, { matrix: false })).rejects.toThrow();
    expect(readdirSync(l.dir).sort()).toEqual(['junit.xml', 'summary.md']);
  });
});
