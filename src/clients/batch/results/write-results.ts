import { writeAtomically } from '../../../platform/files/atomic-write.ts';
import type { BatchLayout } from '../layout.ts';
import type { BatchSummary } from '../summary-schema.ts';
import type { CompareOptions } from './compare.ts';
import { junitXml } from './junit.ts';
import { summaryMarkdown } from './markdown.ts';
import { reportHtml } from './report-html.ts';
import { reportMarkdown } from './report-md.ts';

export type WriteResultsOptions = {
  /** The batch has a matrix: its comparison report (report.html, report.md) is written too. */
  matrix: boolean;
  /** How the report groups the jobs (compare.ts). */
  compare?: CompareOptions;
};

/**
 * Writes the batch's result files into its directory: summary.md and junit.xml, and for a matrix
 * report.html and report.md. Each is written whole (a temp file beside it, then a rename), so a
 * reader (CI picking up junit.xml, a person refreshing the report) never sees half of one.
 * Resolves with the files written.
 */
export async function writeResults(
  layout: BatchLayout,
  summary: BatchSummary,
  options: WriteResultsOptions,
): Promise<string[]> {
  const files: Array<[string, string]> = [
    [layout.summaryMarkdown, summaryMarkdown(summary)],
    [layout.junit, junitXml(summary)],
  ];
  if (options.matrix) {
    files.push(
      [layout.reportHtml, reportHtml(summary, options.compare)],
      [layout.reportMarkdown, reportMarkdown(summary, options.compare)],
    );
  }
  for (const [file, text] of files) await writeAtomically(file, text);
  return files.map(([file]) => file);
}
