/**
 * The model-based test at length: runs sequences until `--sequences N` (default 1000) or
 * `--minutes M` (default 30) are used up, shrinks each failure (bounded by --shrink-minutes), and
 * prints the figures: sequences, steps, kills, restarts, events checked, and every failure with its
 * seed, path and shrunk counterexample. Exits 1 on any failure.
 *
 *   npm run soak -- --sequences 50 --minutes 10 --seed 42
 *   npm run soak -- --seed S --path P --sequences 1     # replay one counterexample
 *   npm run soak -- --ignore idle-reason,idle-count      # look past known failures (see harness.ts)
 */
import { parseArgs } from 'node:util';
import fc from 'fast-check';
import { sequenceProperty } from './commands.ts';
import { Harness, stats } from './harness.ts';

const { values } = parseArgs({
  options: {
    sequences: { type: 'string', default: '1000' },
    minutes: { type: 'string', default: '30' },
    seed: { type: 'string' },
    path: { type: 'string' },
    'shrink-minutes': { type: 'string', default: '5' },
    'max-commands': { type: 'string', default: '12' },
    verbose: { type: 'boolean', default: false },
    ignore: { type: 'string' },
  },
});

const maxSequences = Number(values.sequences);
const deadline = Date.now() + Number(values.minutes) * 60_000;
const baseSeed = values.seed !== undefined ? Number(values.seed) : Math.floor(Math.random() * 0x7fffffff);
const shrinkMs = Number(values['shrink-minutes']) * 60_000;
const maxCommands = Number(values['max-commands']);
const log = values.verbose ? (line: string) => process.stdout.write(`${line}\n`) : undefined;
const ignore = values.ignore?.split(',').filter(Boolean);

type Failure = { seed: number; path: string; counterexample: string; message: string; shrinks: number };
const failures: Failure[] = [];
let sequences = 0;
const started = Date.now();

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    process.stdout.write(`\n${signal}: ending the sequences' processes\n`);
    void Harness.disposeAll().finally(() => {
      summary();
      process.exit(1);
    });
  });
}

process.stdout.write(
  `soak: base seed ${baseSeed}, up to ${maxSequences} sequences or ${values.minutes} minutes\n`,
);
while (sequences < maxSequences && Date.now() < deadline) {
  const seed = (baseSeed + sequences) | 0;
  sequences += 1;
  const t0 = Date.now();
  const details = await check(
    sequenceProperty(maxCommands, { ...(log ? { log } : {}), ...(ignore ? { ignore } : {}) }),
    {
      seed,
      numRuns: 1,
      ...(values.path ? { path: values.path } : {}),
      interruptAfterTimeLimit: shrinkMs,
    },
  );
  const took = ((Date.now() - t0) / 1000).toFixed(1);
  if (details.failed && details.counterexamplePath !== null) {
    const error = details.errorInstance;
    const message = error instanceof Error ? error.message : String(error);
    failures.push({
      seed,
      path: details.counterexamplePath,
      counterexample: fc.stringify(details.counterexample),
      message,
      shrinks: details.numShrinks,
    });
    process.stdout.write(
      `#${sequences} seed ${seed}: FAIL (${took} s, ${details.numShrinks} shrinks): ${message.split('\n')[0]}\n`,
    );
  } else if (details.failed) {
    process.stdout.write(`#${sequences} seed ${seed}: interrupted (${took} s)\n`);
  } else {
    process.stdout.write(`#${sequences} seed ${seed}: ok (${took} s)\n`);
  }
}
summary();
process.exit(failures.length > 0 ? 1 : 0);

/** fc.check, with an error of the runner itself (a replay path that no longer fits) reported as such. */
async function check(...args: Parameters<typeof fc.check>): Promise<Awaited<ReturnType<typeof fc.check>>> {
  try {
    return await fc.check(...args);
  } catch (error) {
    process.stdout.write(`soak: ${(error as Error).message}\n`);
    await Harness.disposeAll();
    summary();
    process.exit(2);
  }
}

/** The first line of a failure with numbers and ids blurred, to group failures by kind. */
function signature(message: string): string {
  return (message.split('\n')[0] ?? '')
    .replace(/run-\d+-[0-9a-f]+/g, 'run-…')
    .replace(/\b[0-9a-f]{7,40}\b/g, '…')
    .replace(/\d+/g, 'N');
}

function summary(): void {
  const minutes = ((Date.now() - started) / 60_000).toFixed(1);
  const out = [
    '',
    `sequences ${sequences} (${stats.sequences} runs of the process with shrinking), steps ${stats.steps}, kills ${stats.kills}, planted kills ${stats.plantedKills}, shutdowns ${stats.shutdowns}, restarts ${stats.restarts}, events checked ${stats.eventsChecked}, ${minutes} min`,
    `failures ${failures.length}`,
  ];
  const kinds = new Map<string, Failure[]>();
  for (const f of failures) kinds.set(signature(f.message), [...(kinds.get(signature(f.message)) ?? []), f]);
  for (const [kind, list] of kinds) {
    const first = list.reduce((a, b) => (b.counterexample.length < a.counterexample.length ? b : a));
    out.push(
      '',
      `== ${kind}  (${list.length}×; seeds ${list.map((f) => f.seed).join(', ')})`,
      `   replay: npm run soak -- --sequences 1 --seed ${first.seed} --path ${first.path}`,
      `   counterexample (${first.shrinks} shrinks): ${first.counterexample}`,
      ...first.message.split('\n').map((l) => `   ${l}`),
    );
  }
  process.stdout.write(`${out.join('\n')}\n`);
}
