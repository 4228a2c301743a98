import { resolve } from 'node:path';
import { type Command, Option } from 'commander';
import { loadConfigFile } from '../config/config-file.ts';
import { formatProblems, loadPlan, type PlanProblem } from '../plan/index.ts';
import { checkSentinelFile } from '../plan/load-sentinel.ts';
import { readSourceFile } from '../plan/source-file.ts';
import { detectKind, FILE_KINDS, type FileKind } from './file-kind.ts';

/** Exit code of `ribosome validate` for a file with errors (1 stays for usage errors and crashes). */
export const INVALID_PLAN_EXIT_CODE = 2;

/** One file's result, as `--json` prints it. */
export type FileReport = {
  file: string;
  kind: FileKind;
  ok: boolean;
  /** What the file holds, for the OK line: the plan's name and codon count, the sentinel's id. */
  name?: string;
  codons?: number;
  problems: PlanProblem[];
};

export function registerValidate(program: Command): void {
  program
    .command('validate')
    .description('Check plan, sentinel and config files and report every problem in them')
    .argument(
      '<files...>',
      'plan, sentinel or config files (YAML or JSON); the kind is told from the content',
    )
    .addOption(new Option('--kind <kind>', 'check every file as this kind').choices(FILE_KINDS))
    .option('--json', 'print the result as JSON')
    .action(async (files: string[], options: { json?: boolean; kind?: FileKind }) => {
      const reports: FileReport[] = [];
      for (const file of files) reports.push(await validateFile(file, options.kind));
      const ok = reports.every((r) => r.ok);
      if (options.json) {
        // One file: its report (the shape of earlier versions); several: every report.
        const output = reports.length === 1 ? jsonReport(reports[0]!) : { ok, files: reports };
        process.stdout.write(`${JSON.stringify(output, null, 2)}\n`);
      } else {
        for (const report of reports) {
          const text = formatProblems(report.problems, report.file);
          if (text !== '') process.stdout.write(`${text}\n`);
          if (report.ok) process.stdout.write(`${okLine(report, reports.length > 1)}\n`);
        }
      }
      process.exitCode = ok ? 0 : INVALID_PLAN_EXIT_CODE;
    });
}

/** Validates one file as `kind`, or as what its content says it is. */
export async function validateFile(file: string, kind?: FileKind): Promise<FileReport> {
  const chosen = kind ?? (await kindOf(file));
  switch (chosen) {
    case 'plan': {
      const result = await loadPlan(file);
      return result.ok
        ? {
            file,
            kind: chosen,
            ok: true,
            name: result.plan.name,
            codons: result.plan.codons.length,
            problems: result.warnings,
          }
        : { file, kind: chosen, ok: false, problems: result.problems };
    }
    case 'sentinel': {
      const result = await checkSentinelFile(resolve(file));
      return result.ok
        ? { file, kind: chosen, ok: true, name: result.sentinel.id, problems: result.problems }
        : { file, kind: chosen, ok: false, problems: result.problems };
    }
    case 'config': {
      const result = await loadConfigFile(file);
      return result.ok
        ? { file, kind: chosen, ok: true, problems: result.warnings }
        : { file, kind: chosen, ok: false, problems: result.problems };
    }
  }
}

/** A file that cannot be read or parsed is checked as a plan: its problems are the same either way. */
async function kindOf(file: string): Promise<FileKind> {
  const read = await readSourceFile(resolve(file), 'file');
  return read.ok ? detectKind(file, read.source.data) : detectKind(file, undefined);
}

function jsonReport(report: FileReport): Omit<FileReport, 'file'> {
  const { file: _file, ...rest } = report;
  return rest;
}

function okLine(report: FileReport, named: boolean): string {
  const where = named ? `${report.file}: ` : '';
  switch (report.kind) {
    case 'plan':
      return `OK: ${where}${report.name} (${report.codons} codon${report.codons === 1 ? '' : 's'})`;
    case 'sentinel':
      return `OK: ${where}sentinel ${report.name}`;
    case 'config':
      return `OK: ${where}config file`;
  }
}
