import type { Command } from 'commander';
import { checkExportArgs, ExportError, type ExportFlags, runExport } from '../../execution/export/index.ts';
import { displayLine } from '../model/display-text.ts';
import { findExecution } from '../runs/find-execution.ts';

export function registerExport(program: Command): void {
  program
    .command('export')
    .description("Hand an execution's completed codons back: a branch, a patch or plain files")
    .option(
      '--execution <dir>',
      'execution directory to export from (default: the only one under ./ribosome-runs)',
    )
    .option('--to-branch <name>', 'create this branch, one commit per completed codon')
    .option('--repo <path>', 'repository for --to-branch (default: the recorded --workspace)')
    .option('--force', 'with --to-branch: replace an existing branch')
    .option('--patch <file>', 'write one patch from the starting point to the last completed codon')
    .option('--dir <dir>', "write the last completed codon's files into this empty directory")
    .action(async (flags: ExportFlags) => {
      process.exitCode = await exportCommand(flags);
    });
}

export async function exportCommand(flags: ExportFlags): Promise<number> {
  // The execution as the reading commands find it (runs, log, journal export): the same default and words.
  const found = findExecution(flags.execution, process.cwd());
  if (!found.ok) {
    process.stderr.write(`ribosome: ${found.message}\n`);
    return 2;
  }
  const checked = checkExportArgs({ ...flags, execution: found.dir }, process.cwd());
  if (!checked.ok) {
    process.stderr.write(`ribosome: ${checked.message}\n`);
    return 2;
  }
  try {
    // It names the codons (a plan's names) and paths: shown, never obeyed (display-text.ts).
    process.stdout.write(`${displayLine(await runExport(checked.value))}\n`);
    return 0;
  } catch (error) {
    process.stderr.write(`ribosome: ${displayLine((error as Error).message)}\n`);
    return error instanceof ExportError ? error.code : 1;
  }
}
