import { resolve } from 'node:path';
import { type Command, Option } from 'commander';
import { checkScriptFile } from '../../llm/mock-provider/script-check.ts';
import { loadConfigFile } from '../../plan/config/config-file.ts';
import { formatProblems, loadPlan, type PlanProblem } from '../../plan/index.ts';
import { checkSentinelFile } from '../../plan/load-sentinel.ts';
import { readSourceFile } from '../../plan/source-file.ts';
import { loadBatch } from '../batch/run/load-batch.ts';
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
  /** A script's tracks and default-track turns. */
  tracks?: number;
  turns?: number;
  /** A batch's jobs, expanded. */
  jobs?: number;
  problems: PlanProblem[];
};

export function registerValidate(program: Command): void {
  program
    .command('validate')
    .description(
      'Check plan, sentinel, config and scripted-provider script files and report every problem in them',
    )
    .argument(
      '<files...>',
      'plan, sentinel, config, script or batch files (YAML or JSON); the kind is told from the content',
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
  const read = kind === undefined ? await readSourceFile(resolve(file), 'file') : undefined;
  const chosen = kind ?? detectKind(file, read?.ok ? read.source.data : undefined);
  // Nothing in it tells its kind (missing, a directory, empty): said of "the file", not "the plan file".
  if (read && !read.ok && chosen !== 'config' && chosen !== 'script') {
    const whole = read.problems.filter((p) => WHOLE_FILE.has(p.code));
    if (whole.length === read.problems.length)
      return { file, kind: chosen, ok: false, problems: whole.map(unknownKind) };
  }
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
    case 'batch': {
      const result = await loadBatch(file);
      return result.ok
        ? {
            file,
            kind: chosen,
            ok: true,
            name: result.value.batch.name,
            jobs: result.value.jobs.length,
            problems: result.warnings,
          }
        : { file, kind: chosen, ok: false, problems: result.problems };
    }
    case 'script': {
      const result = await checkScriptFile(file);
      return result.ok
        ? {
            file,
            kind: chosen,
            ok: true,
            tracks: result.tracks,
            turns: result.turns,
            problems: result.problems,
          }
        : { file, kind: chosen, ok: false, problems: result.problems };
    }
  }
}

/** Problems about the file as a whole, which come before its kind can be told. */
const WHOLE_FILE: ReadonlySet<PlanProblem['code']> = new Set([
  'FILE_NOT_FOUND',
  'FILE_UNREADABLE',
  'EMPTY_FILE',
]);

/** An empty file of unknown kind: valid as a config file only, which --kind config says. */
function unknownKind(problem: PlanProblem): PlanProblem {
  if (problem.code !== 'EMPTY_FILE') return problem;
  return {
    ...problem,
    hint: 'A plan or sentinel file needs its fields (see schema/); a config file of comments only is valid: check it with --kind config.',
  };
}

function jsonReport(report: FileReport): Omit<FileReport, 'file'> {
  const { file: _file, ...rest } = report;
  return rest;
}

const count = (n: number, what: string) => `${n} ${what}${n === 1 ? '' : 's'}`;

function okLine(report: FileReport, named: boolean): string {
  const where = named ? `${report.file}: ` : '';
  switch (report.kind) {
    case 'plan':
      return `OK: ${where}${report.name} (${report.codons} codon${report.codons === 1 ? '' : 's'})`;
    case 'sentinel':
      return `OK: ${where}sentinel ${report.name}`;
    case 'config':
      return `OK: ${where}config file`;
    case 'batch':
      return `OK: ${where}batch ${report.name} (${count(report.jobs ?? 0, 'job')})`;
    case 'script':
      return `OK: ${where}script (${count(report.tracks ?? 0, 'track')}, ${count(report.turns ?? 0, 'default turn')})`;
  }
}
