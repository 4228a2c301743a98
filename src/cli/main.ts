import { Command } from 'commander';
import { SERVER_VERSION } from '../version.ts';
import { registerAgent } from './agent.ts';
import { registerDemo } from './demo.ts';
import { registerDoctor } from './doctor.ts';
import { registerExport } from './export.ts';
import { registerMockProvider } from './mock-provider.ts';
import { registerRun } from './run.ts';
import { registerTui } from './tui.ts';
import { registerValidate } from './validate.ts';

const program = new Command();
program
  .name('ribosome')
  .description('Run multi-step coding-agent plans you can watch, steer and undo.')
  .version(SERVER_VERSION, '-V, --version', 'print the version (package.json) and exit')
  .showHelpAfterError();

// Each subcommand lives in its own module and registers itself here.
const registrations: Array<(program: Command) => void> = [
  registerRun,
  registerMockProvider,
  registerAgent,
  registerValidate,
  registerDemo,
  registerTui,
  registerDoctor,
  registerExport,
];
for (const register of registrations) register(program);

await program.parseAsync(process.argv);
