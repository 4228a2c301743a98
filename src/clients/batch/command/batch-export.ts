import { checkExportArgs, ExportError, runExport } from '../../../execution/export/index.ts';
import { displayLine } from '../../model/display-text.ts';
import { jobExecutionDir } from '../layout.ts';
import { latestRun } from '../run/latest-run.ts';
import { resumedState } from '../run/verdict.ts';
import { openBatchDir } from './batch-dir.ts';

export type ExportFlags = { dir?: string; toBranch: string; force?: boolean };

/**
 * `ribosome batch export --to-branch PREFIX`: each job that passed becomes branch PREFIX<job id> in
 * its workspace's repository, one commit per codon, as `ribosome export --to-branch` makes it. A job
 * without a workspace, or one that did not pass, is named and passed over.
 */
export async function batchExport(file: string | undefined, flags: ExportFlags): Promise<number> {
  const opened = await openBatchDir(file, flags.dir);
  const say = (text: string) => process.stderr.write(`ribosome batch export: ${displayLine(text)}\n`);
  if (!opened.ok) {
    say(opened.message);
    return 2;
  }
  let exported = 0;
  let failed = 0;
  for (const job of opened.record.jobs) {
    const dir = jobExecutionDir(opened.layout, job.id);
    const state = resumedState(latestRun(dir)).state;
    if (state !== 'passed') {
      say(`${job.id}: not exported (${state === 'pending' ? 'not run to its end' : 'failed'})`);
      continue;
    }
    if (job.workspace === undefined) {
      say(
        `${job.id}: not exported (it has no workspace; \`ribosome export --execution ${dir} --patch FILE\` gives its changes)`,
      );
      continue;
    }
    const checked = checkExportArgs(
      { execution: dir, toBranch: `${flags.toBranch}${job.id}`, ...(flags.force ? { force: true } : {}) },
      process.cwd(),
    );
    if (!checked.ok) {
      say(`${job.id}: ${checked.message}`);
      failed += 1;
      continue;
    }
    try {
      say(`${job.id}: ${await runExport(checked.value)}`);
      exported += 1;
    } catch (error) {
      if (!(error instanceof ExportError)) throw error;
      say(`${job.id}: ${error.message}`);
      failed += 1;
    }
  }
  say(`${exported} job${exported === 1 ? '' : 's'} exported${failed > 0 ? `, ${failed} could not be` : ''}`);
  return failed > 0 ? 1 : 0;
}
