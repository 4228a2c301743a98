/**
 * `npm run bench -- check [NAME...] [--rounds N]`: the benchmarks that have targets, each a few rounds,
 * and one line per target: its measure (the median over the rounds), the target, and whether it is
 * met. Each benchmark runs in a process of its own, its own output kept in
 * bench/results/check-<name>.log; the machine's load is printed beside each, since a busy machine
 * makes any figure doubtful. Exit code 1 when a target is missed. What to run before closing an issue
 * that touches a hot path: CONTRIBUTING.md#performance.
 */
import { execFileSync, spawn } from 'node:child_process';
import { createWriteStream, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { join } from 'node:path';
import { median, round } from './stats.ts';

const HERE = import.meta.dirname;
const RESULTS = join(HERE, 'results');

/** Whether processes can be pinned to CPUs: taskset on PATH and two CPUs at least. */
function canPin(): boolean {
  if (availableParallelism() < 2) return false;
  try {
    execFileSync('taskset', ['-p', String(process.pid)], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** One target's measure in one round. */
type Measure = { target: string; value: number; limit: number; better: 'lower' | 'higher'; unit: string };

/** A measure that must stay at most `limit`, or at least it. */
const atMost = (target: string, value: number, limit: number, unit: string): Measure => ({
  target,
  value,
  limit,
  better: 'lower',
  unit,
});
const atLeast = (target: string, value: number, limit: number, unit: string): Measure => ({
  ...atMost(target, value, limit, unit),
  better: 'higher',
});

type Check = {
  name: string;
  /** What the benchmark's run is told: its own rounds where it has them, sizes. */
  env: (rounds: number) => Record<string, string>;
  /** Runs of the benchmark (its measures' median is taken): 1 when it does rounds itself. */
  runs: (rounds: number) => number;
  measures: (result: never) => Measure[];
};

type ProxyRunResult = {
  ratios: { addedP50VsPipe: number; throughputVsPipe: number; firstSseByteAddedMs: number };
};
type FanoutResult = {
  summary: { tailP99Ms: number[]; tailServerP99Ms: number[]; tailClientSaturated: boolean[] };
};
type EngineResult = { end?: { addedAtEndMs: number }; longLoop?: { gapRatio: number } };
type Comparison = { ribosomeMs: number; ratio: number };
type CheckpointsResult = {
  initialCheckpoint: Comparison;
  checkpointAfterOneChange: Comparison;
  rollbackAcross5: Comparison;
  growth50: { ratio: number };
};
type CheckpointsLargeResult = { oneChange: Comparison };
type SandboxResult = {
  skipped?: string;
  lightCodonMs?: { addedMs: number };
  heavyCodonMs?: { addedPercent: number };
};

const CHECKS: Check[] = [
  {
    name: 'proxy-run',
    // Pinned (the client and upstream on one CPU, both proxies on the other, sides alternating) where
    // taskset is: unpinned, where the scheduler puts each process moves one side and not the other
    // (x1.5 unpinned against x1.22 pinned in the same hour, load 1.5).
    env: (rounds) => ({
      PROXY_RUN_ROUNDS: String(Math.max(5, rounds)),
      ...(canPin() ? { PROXY_RUN_PIN: '1' } : {}),
    }),
    runs: () => 1,
    measures: (r: ProxyRunResult) => [
      atMost('added p50, x the pipe', r.ratios.addedP50VsPipe, 1.2, 'x'),
      atLeast('c=64 req/s, x the pipe', r.ratios.throughputVsPipe, 0.9, 'x'),
      atMost('first SSE byte added', r.ratios.firstSseByteAddedMs, 1, 'ms'),
    ],
  },
  {
    name: 'fanout',
    env: () => ({ BENCH_FANOUT: 'tail' }),
    runs: () => 1,
    measures: (r: FanoutResult) => {
      const { tailP99Ms, tailServerP99Ms, tailClientSaturated } = r.summary;
      const honest = tailP99Ms.filter((_, i) => !tailClientSaturated[i]);
      return [
        atLeast(
          'tail p99 < 50 ms at 5 000 ev/s to 100 clients, runs of 3',
          honest.filter((p) => p < 50).length,
          3,
          '',
        ),
        atMost('tail p99, median of the runs', median(tailP99Ms), 50, 'ms'),
        atMost('tail p99 server side, median', median(tailServerP99Ms), 50, 'ms'),
      ];
    },
  },
  {
    name: 'engine',
    env: () => ({ ENGINE_PARTS: 'end,long-loop' }),
    runs: (rounds) => rounds,
    measures: (r: EngineResult) => [
      ...(r.end ? [atMost('added at codon end', r.end.addedAtEndMs, 35, 'ms')] : []),
      ...(r.longLoop ? [atMost('long loop gap, last / first', r.longLoop.gapRatio, 1.3, 'x')] : []),
    ],
  },
  {
    name: 'checkpoints',
    env: () => ({}),
    runs: () => 1,
    measures: (r: CheckpointsResult) => [
      atMost('first checkpoint, x git add+commit', r.initialCheckpoint.ratio, 1.3, 'x'),
      atMost('checkpoint after one change, x git', r.checkpointAfterOneChange.ratio, 1.3, 'x'),
      atMost('checkpoint after one change', r.checkpointAfterOneChange.ribosomeMs, 300, 'ms'),
      atMost('rollback across 5, x git', r.rollbackAcross5.ratio, 1.3, 'x'),
      atMost('disk growth of 50 checkpoints, x git', r.growth50.ratio, 1.3, 'x'),
    ],
  },
  {
    name: 'checkpoints-large',
    env: () => ({}),
    runs: () => 1,
    measures: (r: CheckpointsLargeResult) => [
      atMost('1 GB tree: one change, x git', r.oneChange.ratio, 1.3, 'x'),
      atMost('1 GB tree: checkpoint after one change', r.oneChange.ribosomeMs, 500, 'ms'),
    ],
  },
  {
    name: 'sandbox',
    env: (rounds) => ({ SANDBOX_BENCH_RUNS: String(Math.max(3, rounds)) }),
    runs: () => 1,
    measures: (r: SandboxResult) =>
      r.skipped || !r.lightCodonMs || !r.heavyCodonMs
        ? []
        : [
            atMost('sandbox added to a codon', r.lightCodonMs.addedMs, 50, 'ms'),
            atMost('sandbox added to a tool-heavy codon', r.heavyCodonMs.addedPercent, 5, '%'),
          ],
  },
];

const isMet = (m: Pick<Measure, 'value' | 'limit' | 'better'>) =>
  m.better === 'lower' ? m.value <= m.limit : m.value >= m.limit;

const load = () =>
  loadavg()
    .map((l) => round(l, 2))
    .join(' ');

/** Runs `node bench/run.ts <name>` with `env`, its output appended to `log`; resolves with its exit code. */
function runBench(name: string, env: Record<string, string>, log: string): Promise<number> {
  return new Promise((resolve) => {
    const out = createWriteStream(log, { flags: 'a' });
    const child = spawn(process.execPath, [join(HERE, 'run.ts'), name], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout.pipe(out, { end: false });
    child.stderr.pipe(out, { end: false });
    child.once('exit', (code) => out.end(() => resolve(code ?? 1)));
  });
}

export async function run(argv = process.argv.slice(2)): Promise<boolean> {
  const roundsAt = argv.indexOf('--rounds');
  const rounds = roundsAt >= 0 ? Number(argv[roundsAt + 1]) : 3;
  if (!Number.isInteger(rounds) || rounds < 1) {
    console.error('--rounds takes a whole number of at least 1');
    process.exit(2);
  }
  const names = argv.filter((a, i) => !a.startsWith('-') && a !== 'check' && argv[i - 1] !== '--rounds');
  const unknown = names.filter((n) => !CHECKS.some((c) => c.name === n));
  if (unknown.length > 0) {
    console.error(
      `no targets in "${unknown.join('", "')}"; choose from ${CHECKS.map((c) => c.name).join(', ')}`,
    );
    process.exit(2);
  }
  const checks = names.length > 0 ? CHECKS.filter((c) => names.includes(c.name)) : CHECKS;
  mkdirSync(RESULTS, { recursive: true });
  console.log(
    `bench check: ${checks.map((c) => c.name).join(', ')}; ${rounds} rounds; load ${load()} (1, 5, 15 min)`,
  );
  let allMet = true;
  for (const check of checks) {
    const log = join(RESULTS, `check-${check.name}.log`);
    writeFileSync(log, '');
    const started = performance.now();
    const loadBefore = load();
    const rounds_: Measure[][] = [];
    for (let i = 0; i < check.runs(rounds); i++) {
      const code = await runBench(check.name, check.env(rounds), log);
      if (code !== 0) {
        console.log(`${check.name}: the benchmark failed (exit ${code}); see ${log}`);
        allMet = false;
        break;
      }
      const result = JSON.parse(readFileSync(join(RESULTS, `${check.name}.json`), 'utf8')) as never;
      rounds_.push(check.measures(result));
    }
    const seconds = round((performance.now() - started) / 1000, 0);
    if (rounds_.length === 0) continue;
    if (rounds_[0]!.length === 0) console.log(`${check.name}: skipped (see ${log})`);
    for (const [i, first] of rounds_[0]!.entries()) {
      const values = rounds_.map((r) => r[i]!.value);
      const value = median(values);
      const met = isMet({ ...first, value });
      allMet &&= met;
      const spread = values.length > 1 ? ` (runs: ${values.join(', ')})` : '';
      console.log(
        `${check.name.padEnd(10)} ${first.target.padEnd(58)} ${`${value}${first.unit}`.padStart(9)}` +
          `  ${first.better === 'lower' ? '<=' : '>='} ${first.limit}${first.unit}  ${met ? 'met' : 'MISSED'}${spread}`,
      );
    }
    console.log(
      `${''.padEnd(10)} ${seconds} s; load before ${loadBefore}, after ${load()}; output in ${log}`,
    );
  }
  return allMet;
}
