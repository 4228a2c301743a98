/**
 * The batch table on a real terminal for the e2e test, without a batch runner: it shows the summary
 * in the file given, opens a running job's TUI with the real `ribosome tui`, and on q shows the batch
 * stopped and ends. Run as `node table-program.ts SUMMARY.json`.
 */
import { readFileSync } from 'node:fs';
import { BatchSummary } from '../../../../../src/clients/batch/summary-schema.ts';
import { loadBatchView } from '../../../../../src/clients/batch/view/load.ts';

const file = process.argv[2];
if (!file) throw new Error('usage: table-program.ts SUMMARY.json');
const summary = BatchSummary.parse(JSON.parse(readFileSync(file, 'utf8')));
let stop: () => void = () => {};
const stopped = new Promise<void>((resolve) => {
  stop = resolve;
});

async function* summaries(): AsyncGenerator<BatchSummary> {
  yield summary;
  await stopped;
  yield { ...summary, state: 'stopped' };
}

const { runBatchView } = await loadBatchView();
const last = await runBatchView({ summaries: summaries(), onQuit: () => stop() });
process.stdout.write(`the view ended: batch ${last?.name} ${last?.state}\n`);
