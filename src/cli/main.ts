import { Command } from 'commander';
import { registerRun } from './run.ts';

const program = new Command();
program
  .name('ribosome')
  .description('Run multi-step coding-agent plans you can watch, steer and undo.')
  .showHelpAfterError();

// Each subcommand lives in its own module and registers itself here.
const registrations: Array<(program: Command) => void> = [registerRun];
for (const register of registrations) register(program);

await program.parseAsync(process.argv);
