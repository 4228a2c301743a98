/**
 * `ribosome cassette show|to-script <execution-or-cassette>`: a recording read (docs/testing-plans.md).
 */
import { writeFileSync } from 'node:fs';
import type { Command } from 'commander';
import { stringify } from 'yaml';
import { CassetteError, readCassette } from '../../llm/cassette/read.ts';
import { showCassette } from '../../llm/cassette/show.ts';
import { cassetteToScript } from '../../llm/cassette/to-script.ts';
import { parseScript } from '../../llm/mock-provider/script-loader.ts';
import { EXIT } from './run.ts';

function read(given: string): ReturnType<typeof readCassette> | undefined {
  try {
    return readCassette(given);
  } catch (error) {
    if (!(error instanceof CassetteError)) throw error;
    process.stderr.write(`ribosome: ${error.message}\n`);
    process.exitCode = EXIT.invalidInput;
    return undefined;
  }
}

export function registerCassette(program: Command): void {
  const cassette = program.command('cassette').description('Read a recording of `ribosome run --record`');
  cassette
    .command('show')
    .description(
      'List the exchanges of a cassette: who asked, what model, what the answer said, and the outcome',
    )
    .argument('<execution-or-cassette>', 'a recorded execution directory, or its cassette.jsonl')
    .action((given: string) => {
      const found = read(given);
      if (found) process.stdout.write(`${showCassette(found.cassette, found.path).join('\n')}\n`);
    });
  cassette
    .command('to-script')
    .description('Turn a cassette into a scripted-provider script to edit and run with --scripted-provider')
    .argument('<execution-or-cassette>', 'a recorded execution directory, or its cassette.jsonl')
    .option('--out <file>', 'write the script there (default: standard output)')
    .action((given: string, flags: { out?: string }) => {
      const found = read(given);
      if (!found) return;
      const { script, notes } = cassetteToScript(found.cassette);
      // What the scripted provider would refuse is a bug here, not the user's to find.
      const checked = parseScript(script);
      if (!checked.ok) throw new Error(`cassette to-script made an invalid script: ${checked.error.message}`);
      const text = `# Made by \`ribosome cassette to-script\` from ${found.path}: one track per caller.\n# Format: examples/scripts/README.md.\n${stringify(script, { lineWidth: 0 })}`;
      for (const note of notes) process.stderr.write(`ribosome: ${note}\n`);
      if (flags.out) {
        writeFileSync(flags.out, text);
        process.stderr.write(`ribosome: wrote ${script.tracks?.length ?? 0} tracks to ${flags.out}\n`);
      } else {
        process.stdout.write(text);
      }
    });
}
