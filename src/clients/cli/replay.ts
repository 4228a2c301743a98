/**
 * `ribosome replay <execution-or-cassette>`: runs a recorded plan again in a fresh execution, its
 * agents' and sentinels' LLM answers taken from the cassette (docs/testing-plans.md). The agents,
 * their tools, the rig and the gates are real; nothing leaves the machine unless asked to.
 */
import { existsSync, realpathSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { Command } from 'commander';
import { executionLayout } from '../../execution/layout/layout.ts';
import { CassetteError, readCassette } from '../../llm/cassette/read.ts';
import type { ReplaySettings, RunFlags } from './run/parse-flags.ts';
import { EXIT, exitOnceStopped, run, runOptions } from './run.ts';

type ReplayFlags = RunFlags & {
  plan?: string;
  onMiss: string;
  sentinels: string;
  pace: string;
  check?: boolean;
};

/** `value` when it is one of `allowed`, else why not. */
function choice<T extends string>(
  flag: string,
  value: string,
  allowed: readonly T[],
): { ok: true; value: T } | { ok: false; message: string } {
  return (allowed as readonly string[]).includes(value)
    ? { ok: true, value: value as T }
    : { ok: false, message: `${flag} must be ${allowed.join(' or ')}, got "${value}"` };
}

export function registerReplay(program: Command): void {
  runOptions(
    program
      .command('replay')
      .description("Run a recorded plan again, its LLM answers from the recording's cassette")
      .argument('<execution-or-cassette>', 'a recorded execution directory, or its cassette.jsonl'),
    { execution: 'execution directory (default ./ribosome-runs/<plan name>-replay-<time>, a new one)' },
  )
    .option('--plan <file>', 'the plan to run (default: the recorded one)')
    .option(
      '--on-miss <what>',
      'a request the cassette cannot answer: fail its codon, or ask the live provider (fail, live)',
      'fail',
    )
    .option(
      '--sentinels <from>',
      "sentinels' answers: from the cassette, or from the live provider (cassette, live)",
      'cassette',
    )
    .option(
      '--pace <pace>',
      'as fast as the agents read, or with the recorded timing (fast, recorded)',
      'fast',
    )
    .option(
      '--check',
      'once the run ends, compare it with the recording (codons, checkpoint trees, costs, gates); differences exit 1',
    )
    .action(async (given: string, flags: ReplayFlags) => {
      exitOnceStopped(await replay(given, flags));
    });
}

export async function replay(given: string, flags: ReplayFlags): Promise<number> {
  const fail = (message: string) => {
    process.stderr.write(`ribosome: ${message}\n`);
    return EXIT.invalidInput;
  };
  const onMiss = choice('--on-miss', flags.onMiss, ['fail', 'live'] as const);
  if (!onMiss.ok) return fail(onMiss.message);
  const sentinels = choice('--sentinels', flags.sentinels, ['cassette', 'live'] as const);
  if (!sentinels.ok) return fail(sentinels.message);
  const pace = choice('--pace', flags.pace, ['fast', 'recorded'] as const);
  if (!pace.ok) return fail(pace.message);
  let read: ReturnType<typeof readCassette>;
  try {
    read = readCassette(given);
  } catch (error) {
    if (error instanceof CassetteError) return fail(error.message);
    throw error;
  }
  const { path, cassette } = read;
  const recorded = isExecution(given)
    ? resolve(given)
    : isExecution(dirname(path))
      ? dirname(resolve(path))
      : undefined;
  const plan = flags.plan ?? cassette.header.plan.path;
  if (!flags.plan && !existsSync(plan)) {
    return fail(`the recorded plan ${plan} is not there any more; give the plan to run with --plan FILE`);
  }
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const execution = resolve(flags.execution ?? `ribosome-runs/${cassette.header.plan.name}-replay-${stamp}`);
  if (recorded && sameDirectory(execution, recorded)) {
    return fail(
      `--execution ${execution} is the recorded execution; a replay runs in an execution of its own`,
    );
  }
  const workspace = flags.workspace ?? cassette.header.workspace;
  const settings: ReplaySettings = {
    path,
    cassette,
    onMiss: onMiss.value,
    sentinels: sentinels.value,
    pace: pace.value,
    check: flags.check === true,
    ...(recorded ? { recordedExecution: recorded } : {}),
  };
  process.stderr.write(
    `ribosome: replaying ${cassette.exchanges.length} recorded exchanges of ${cassette.header.plan.name} from ${path}\n`,
  );
  return run(plan, { ...flags, execution, ...(workspace ? { workspace } : {}) }, settings);
}

/** Whether two paths name one directory (through symlinks too); one that does not exist is no other. */
function sameDirectory(a: string, b: string): boolean {
  const real = (path: string) => {
    try {
      return realpathSync(path);
    } catch {
      return resolve(path);
    }
  };
  return real(a) === real(b);
}

function isExecution(dir: string): boolean {
  try {
    return statSync(dir).isDirectory() && existsSync(executionLayout(dir).database);
  } catch {
    return false;
  }
}
