import { resolve } from 'node:path';
import type { Command } from 'commander';
import { exitOnceStopped, run } from './run.ts';

const ROOT = resolve(import.meta.dirname, '../..');

/**
 * `ribosome demo`: the demo plan, offline (built-in agent, scripted provider), in a fresh execution
 * directory each time, printing what happens and exiting when the plan has run.
 */
export function registerDemo(program: Command): void {
  program
    .command('demo')
    .description('Run the demo plan offline with the built-in agent and the scripted provider')
    .option('--execution <dir>', 'execution directory (default ./ribosome-runs/demo-<time>)')
    .option('--keep-serving', 'keep the server running after the plan has run')
    .option('--exit-when-done', 'exit once the plan has run (the default; as `run --exit-when-done`)')
    .action(async (flags: { execution?: string; keepServing?: boolean; exitWhenDone?: boolean }) => {
      if (flags.keepServing && flags.exitWhenDone) {
        process.stderr.write('ribosome: --keep-serving and --exit-when-done contradict each other\n');
        process.exitCode = 2;
        return;
      }
      const execution =
        flags.execution ?? `ribosome-runs/demo-${new Date().toISOString().replace(/[:.]/g, '-')}`;
      process.stderr.write(`Ribosome demo: execution directory ${resolve(execution)}\n`);
      exitOnceStopped(
        await run(resolve(ROOT, 'examples/demo/plan.yaml'), {
          execution,
          autostart: true,
          scriptedProvider: resolve(ROOT, 'examples/scripts/demo.yaml'),
          exitWhenDone: !flags.keepServing,
        }),
      );
    });
}
