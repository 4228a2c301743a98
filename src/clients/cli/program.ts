import { Command } from 'commander';
import { SERVER_VERSION } from '../../core/version.ts';
import { registerAgent } from './agent.ts';
import { registerBatch } from './batch.ts';
import { registerCassette } from './cassette.ts';
import { registerDemo } from './demo.ts';
import { registerDoctor } from './doctor.ts';
import { registerExport } from './export.ts';
import { registerJournal } from './journal.ts';
import { registerLog } from './log.ts';
import { registerMcp } from './mcp.ts';
import { registerMockProvider } from './mock-provider.ts';
import { registerReplay } from './replay.ts';
import { registerRun } from './run.ts';
import { registerRuns } from './runs.ts';
import { registerTui } from './tui.ts';
import { registerValidate } from './validate.ts';
import { registerWeb } from './web.ts';

/** Exit code of a command line commander rejects, as for every other invalid input. */
const USAGE_EXIT_CODE = 2;

/**
 * The `ribosome` command line, every subcommand registered, nothing parsed yet: main.ts parses argv
 * with it, and `npm run docs` writes docs/reference/cli.md from it.
 */
export function buildProgram(): Command {
  const program = new Command();
  program
    .name('ribosome')
    .description('Run multi-step coding-agent plans you can watch, steer and undo.')
    .version(SERVER_VERSION, '-V, --version', 'print the version (package.json) and exit')
    .showHelpAfterError()
    // A usage error (unknown option or command, missing or rejected argument) is invalid input, exit 2
    // like the others; help and --version stay 0. Subcommands inherit this (they are added below).
    .exitOverride((error) => process.exit(error.exitCode === 0 ? 0 : USAGE_EXIT_CODE));

  // Each subcommand lives in its own module and registers itself here.
  const registrations: Array<(program: Command) => void> = [
    registerRun,
    registerReplay,
    registerCassette,
    registerBatch,
    registerMockProvider,
    registerAgent,
    registerValidate,
    registerDemo,
    registerTui,
    registerDoctor,
    registerExport,
    registerRuns,
    registerJournal,
    registerLog,
    registerWeb,
    registerMcp,
  ];
  for (const register of registrations) register(program);
  return program;
}
