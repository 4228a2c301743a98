import type { Command } from 'commander';
import { displayJson, displayLine } from '../model/display-text.ts';
import { ExecutionReadError, findExecution, formatRuns, type RunRow, readRuns } from '../runs/index.ts';

type RunsFlags = { execution?: string; json?: boolean };

export function registerRuns(program: Command): void {
  program
    .command('runs')
    .description('List the runs of an execution: status, codons done, cost, start, duration, branch')
    .option('--execution <dir>', 'execution directory (default: the only one under ./ribosome-runs)')
    .option('--json', 'print a JSON array instead of the table')
    .action((flags: RunsFlags) => {
      process.exitCode = runsCommand(flags);
    });
}

export function runsCommand(flags: RunsFlags): number {
  const found = findExecution(flags.execution, process.cwd());
  if (!found.ok) return fail(found.message, 2);
  try {
    const rows = readRuns(found.dir);
    const shown = flags.json ? displayJson(JSON.stringify(rows, null, 2)) : formatRuns(rows.map(shownRow));
    process.stdout.write(`${shown}\n`);
    return 0;
  } catch (error) {
    return fail(`runs: ${(error as Error).message}`, error instanceof ExecutionReadError ? 2 : 1);
  }
}

/**
 * A row as the table shows it: a control or bidirectional character in a journal's ids, branch or
 * times is printed as an inert stand-in (display-text.ts), never obeyed by the terminal.
 */
function shownRow(r: RunRow): RunRow {
  return {
    ...r,
    id: displayLine(r.id),
    failed: r.failed.map(displayLine),
    stopped: r.stopped.map(displayLine),
    startedAt: displayLine(r.startedAt),
    branch: r.branch === null ? null : displayLine(r.branch),
    ...(r.usageWait
      ? {
          usageWait: {
            ...r.usageWait,
            codonId: displayLine(r.usageWait.codonId),
            agent: displayLine(r.usageWait.agent),
          },
        }
      : {}),
  };
}

function fail(message: string, code: number): number {
  process.stderr.write(`ribosome: ${message}\n`);
  return code;
}
