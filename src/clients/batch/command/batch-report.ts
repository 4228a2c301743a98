import { writeFileAtomic } from '../../../platform/files/atomic-write.ts';
import { writeResults } from '../results/index.ts';
import { summaryFromDir } from '../run/batch-record.ts';
import { batchHolder } from '../run/run-batch.ts';
import { endLine } from './batch-command.ts';
import { openBatchDir } from './batch-dir.ts';

/**
 * `ribosome batch report`: the result files rebuilt from the batch directory alone (the pods of a
 * cluster batch, or CI matrix entries, each ran one job with --job-index).
 */
export async function batchReport(file: string | undefined, flags: { dir?: string }): Promise<number> {
  const opened = await openBatchDir(file, flags.dir);
  if (!opened.ok) {
    process.stderr.write(`ribosome batch report: ${opened.message}\n`);
    return 2;
  }
  const holder = batchHolder(opened.layout);
  if (holder) {
    process.stderr.write(
      `ribosome batch report: a batch process (pid ${holder.pid}) runs this batch: its summary.json and result files are current, and it writes them again when it ends\n`,
    );
    return 3;
  }
  const summary = summaryFromDir(opened.layout, opened.record);
  writeFileAtomic(opened.layout.summary, `${JSON.stringify(summary, null, 2)}\n`);
  await writeResults(opened.layout, summary, {
    matrix: summary.jobs.some((j) => Object.keys(j.axes).length > 0),
  });
  process.stderr.write(`ribosome batch report: ${endLine(summary, opened.layout.summary, 'report')}\n`);
  return summary.jobs.every((j) => j.state === 'passed') ? 0 : 1;
}
