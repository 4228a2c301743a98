import { existsSync } from 'node:fs';
import { type BatchLayout, batchLayout } from '../layout.ts';
import { type BatchRecord, readBatchRecord } from '../run/batch-record.ts';
import { batchProblemsText, loadBatch } from '../run/load-batch.ts';
import { batchDirOf } from '../run/run-batch.ts';

/** The batch directory `batch export` and `batch report` read: --dir, else the batch file's default. */
export async function openBatchDir(
  file: string | undefined,
  dir: string | undefined,
): Promise<{ ok: true; layout: BatchLayout; record: BatchRecord } | { ok: false; message: string }> {
  let path = dir;
  if (path === undefined) {
    if (file === undefined)
      return { ok: false, message: 'give the batch file, or its directory with --dir DIR' };
    const loaded = await loadBatch(file);
    if (!loaded.ok) {
      return {
        ok: false,
        message: `the batch file cannot be read:\n${batchProblemsText(loaded.problems, file)}`,
      };
    }
    path = batchDirOf(loaded.value.batch.name, undefined);
  }
  const layout = batchLayout(batchDirOf('', path));
  if (!existsSync(layout.dir))
    return { ok: false, message: `${layout.dir} does not exist: has the batch run?` };
  const record = readBatchRecord(layout);
  if (!record) {
    return {
      ok: false,
      message: `${layout.dir} is not a batch directory (no readable batch.json): give the directory \`ribosome batch\` printed`,
    };
  }
  return { ok: true, layout, record };
}
