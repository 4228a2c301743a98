import { Command } from 'commander';

const program = new Command();
program.name('ribosome').description('Run multi-step coding-agent plans you can watch, steer and undo.');

await program.parseAsync(process.argv);
