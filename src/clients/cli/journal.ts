import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { resolve } from 'node:path';
import type { Writable } from 'node:stream';
import { type Command, Option } from 'commander';
import {
  ExecutionReadError,
  findExecution,
  journalEvents,
  journalRunIds,
  openExecutionDb,
} from '../runs/index.ts';

type ExportFlags = { execution?: string; run?: string; format: 'jsonl'; out?: string };

export function registerJournal(program: Command): void {
  const journal = program.command('journal').description("Read an execution's event journal");
  journal
    .command('export')
    .description('Write the journaled events as they were sent, in sequence order, one JSON object a line')
    .option('--execution <dir>', 'execution directory (default: the only one under ./ribosome-runs)')
    .option('--run <id>', 'only the events of this run (see `ribosome runs`)')
    .addOption(new Option('--format <format>', 'output format').choices(['jsonl']).default('jsonl'))
    .option('--out <file>', 'write to this file instead of stdout')
    .action(async (flags: ExportFlags) => {
      process.exitCode = await journalExport(flags);
    });
}

export async function journalExport(flags: ExportFlags): Promise<number> {
  const found = findExecution(flags.execution, process.cwd());
  if (!found.ok) return fail(`journal export: ${found.message}`, 2);
  let db: ReturnType<typeof openExecutionDb>;
  try {
    db = openExecutionDb(found.dir);
  } catch (error) {
    return fail(`journal export: ${(error as Error).message}`, error instanceof ExecutionReadError ? 2 : 1);
  }
  try {
    if (flags.run !== undefined) {
      const known = journalRunIds(db);
      if (!known.includes(flags.run)) {
        const runs = known.length > 0 ? `its runs: ${known.join(', ')}` : 'its journal is empty';
        return fail(`journal export: no run ${JSON.stringify(flags.run)} in ${found.dir}; ${runs}`, 2);
      }
    }
    const out = flags.out === undefined ? process.stdout : createWriteStream(resolve(flags.out));
    await writeLines(out, journalEvents(db, flags.run));
    if (out !== process.stdout) {
      out.end();
      await once(out, 'finish');
    }
    return 0;
  } catch (error) {
    return fail(`journal export: ${(error as Error).message}`, 1);
  } finally {
    db.close();
  }
}

/**
 * Writes each line, waiting for the stream to drain when it asks to: memory stays bounded whatever
 * the journal's size. Stops quietly when the reader went away (a closed pipe, as with `| head`).
 */
async function writeLines(out: Writable, lines: Iterable<string>): Promise<void> {
  let broken: Error | undefined;
  const onError = (error: Error) => {
    broken = error;
  };
  // Kept on: a late error of a closed pipe must not become an uncaught exception.
  out.on('error', onError);
  for (const line of lines) {
    if (broken) break;
    // once() rejects on an error event, which onError has recorded.
    if (!out.write(`${line}\n`)) await once(out, 'drain').catch(() => {});
  }
  if (broken && (broken as NodeJS.ErrnoException).code !== 'EPIPE') throw broken;
}

function fail(message: string, code: number): number {
  process.stderr.write(`ribosome: ${message}\n`);
  return code;
}
