/**
 * A checkpoint after a one-file change in a large agent root (100 000 files, ~1 GB), beside
 * `git add -A && git commit` on a plain repository of the same tree (its git directory beside the
 * tree, as the store's is), and the gits one checkpoint runs, each with its own time (git trace2).
 *
 *   node_modules/.bin/node bench/checkpoints-large.ts
 *   BENCH_CHECKPOINT_LARGE_FILES=20000 BENCH_CHECKPOINT_LARGE_MB=200 node_modules/.bin/node bench/checkpoints-large.ts
 *
 * Prints a table and writes bench/results/checkpoints-large.json. Temp directories are removed at the end.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CheckpointStore } from '../src/execution/checkpoints/index.ts';
import {
  changeFile,
  generateTree,
  median,
  must,
  plainGit,
  round,
  timed,
  tracingGit,
} from './checkpoint-tree.ts';
import { isMain } from './stats.ts';

export type LargeOptions = {
  /** [files=100000] */
  files?: number;
  /** [megabytes=1024] */
  megabytes?: number;
  /** [reps=7] */
  reps?: number;
  log?: (line: string) => void;
};

export type LargeResult = {
  tree: { files: number; bytes: number };
  gitVersion: string;
  firstCheckpoint: { ribosomeMs: number; plainMs: number; ratio: number; samples: 1 };
  oneChange: {
    ribosomeMs: number;
    plainMs: number;
    ratio: number;
    ribosomeCpuMs: number;
    plainCpuMs: number;
    cpuRatio: number;
    samples: number;
  };
  /** The gits of one more checkpoint after a one-file change, in order, with their own wall time. */
  gitRuns: Array<{ name: string; ms: number }>;
  targets: { maxRatio: number; maxCheckpointMs: number; met: boolean };
};

const MAX_RATIO = 1.3;
const MAX_CHECKPOINT_MS = 500;

export async function measureLarge(options: LargeOptions = {}): Promise<LargeResult> {
  const files = options.files ?? 100_000;
  const megabytes = options.megabytes ?? 1024;
  const reps = options.reps ?? 7;
  const started = performance.now();
  const say = options.log ?? (() => {});
  const log = (line: string) => say(`${((performance.now() - started) / 1000).toFixed(1)}s ${line}`);
  const root = mkdtempSync(join(tmpdir(), 'ribosome-bench-checkpoints-large-'));
  try {
    const agentRoot = join(root, 'agentRoot');
    log(`generating ${files} files, ~${megabytes} MB, in ${root}`);
    const tree = generateTree([agentRoot], files, megabytes * 1024 * 1024);
    const git = plainGit(agentRoot, join(root, 'plain.git'));

    log('first checkpoint of each (once)');
    let store: CheckpointStore | undefined;
    const firstOurs = await timed(async () => {
      store = must(
        await CheckpointStore.open({ executionDir: join(root, 'execution'), workTree: agentRoot }),
      );
      must(await store.startRun('bench'));
    });
    const firstPlain = await timed(async () => {
      await git('init', '-q');
      await git('add', '-A');
      await git('commit', '-q', '-m', 'initial');
    });
    if (!store) throw new Error('no first checkpoint');
    const ours = store;

    let step = 0;
    const checkpoint = (target: CheckpointStore) =>
      timed(async () =>
        must(
          await target.create({
            runId: 'bench',
            codonId: `c${step}`,
            codonName: `Codon ${step}`,
            checkpointType: 'completed',
            status: 'completed',
          }),
        ),
      );
    const plainCommit = () =>
      timed(async () => {
        await git('add', '-A');
        await git('commit', '-q', '--allow-empty', '-m', `step ${step}`);
      });

    log(`checkpoint after one change, ${reps} times`);
    const oursTimes: Array<{ ms: number; cpuMs: number }> = [];
    const plainTimes: Array<{ ms: number; cpuMs: number }> = [];
    for (let i = 0; i < reps; i++) {
      step += 1;
      // The same tree for both: each sees the one changed file.
      changeFile(agentRoot, tree.smallFiles[(i * 7919) % tree.smallFiles.length]!, step);
      if (i % 2 === 0) {
        oursTimes.push(await checkpoint(ours));
        plainTimes.push(await plainCommit());
      } else {
        plainTimes.push(await plainCommit());
        oursTimes.push(await checkpoint(ours));
      }
    }

    log('the gits of one more checkpoint');
    const tracing = tracingGit(root);
    const traced = must(
      await CheckpointStore.open({
        executionDir: join(root, 'execution'),
        workTree: agentRoot,
        gitBinary: tracing.binary,
      }),
    );
    step += 1;
    changeFile(agentRoot, tree.smallFiles[(step * 104729) % tree.smallFiles.length]!, step);
    tracing.read();
    await checkpoint(traced);
    const gitRuns = tracing.read();

    const ribosomeMs = median(oursTimes.map((t) => t.ms));
    const plainMs = median(plainTimes.map((t) => t.ms));
    const ribosomeCpuMs = median(oursTimes.map((t) => t.cpuMs));
    const plainCpuMs = median(plainTimes.map((t) => t.cpuMs));
    const ratio = round(ribosomeMs / plainMs);
    return {
      tree: { files: tree.files, bytes: tree.bytes },
      gitVersion: ours.gitVersion,
      firstCheckpoint: {
        ribosomeMs: round(firstOurs.ms),
        plainMs: round(firstPlain.ms),
        ratio: round(firstOurs.ms / firstPlain.ms),
        samples: 1,
      },
      oneChange: {
        ribosomeMs,
        plainMs,
        ratio,
        ribosomeCpuMs,
        plainCpuMs,
        cpuRatio: round(ribosomeCpuMs / plainCpuMs),
        samples: reps,
      },
      gitRuns,
      targets: {
        maxRatio: MAX_RATIO,
        maxCheckpointMs: MAX_CHECKPOINT_MS,
        met: ratio <= MAX_RATIO && ribosomeMs < MAX_CHECKPOINT_MS,
      },
    };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

function table(result: LargeResult): string {
  const ms = (v: number) => `${v.toFixed(0)} ms`;
  const rows: Array<[string, string, string, string]> = [
    ['', 'ribosome', 'plain git', 'ratio'],
    [
      'first checkpoint (once)',
      ms(result.firstCheckpoint.ribosomeMs),
      ms(result.firstCheckpoint.plainMs),
      `${result.firstCheckpoint.ratio}`,
    ],
    [
      `checkpoint, 1 file changed (median of ${result.oneChange.samples})`,
      ms(result.oneChange.ribosomeMs),
      ms(result.oneChange.plainMs),
      `${result.oneChange.ratio}`,
    ],
    [
      '  CPU (this process and its gits)',
      ms(result.oneChange.ribosomeCpuMs),
      ms(result.oneChange.plainCpuMs),
      `${result.oneChange.cpuRatio}`,
    ],
  ];
  const widths = [0, 1, 2, 3].map((c) => Math.max(...rows.map((r) => r[c]!.length)));
  const lines = rows.map((r) =>
    r.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]!) : cell.padStart(widths[c]!))).join('   '),
  );
  const runs = `gits of one checkpoint (${result.gitRuns.length}): ${result.gitRuns.map((r) => `${r.name} ${r.ms} ms`).join(', ')}`;
  const header = `${result.tree.files} files, ${(result.tree.bytes / 1024 / 1024).toFixed(0)} MB, git ${result.gitVersion}`;
  const verdict = `targets (ratio <= ${MAX_RATIO}, checkpoint < ${MAX_CHECKPOINT_MS} ms): ${result.targets.met ? 'met' : 'NOT met'}`;
  return [header, ...lines, runs, verdict].join('\n');
}

/** Measures, prints the table and writes bench/results/checkpoints-large.json (`npm run bench`). */
export async function run(options: LargeOptions = {}): Promise<LargeResult> {
  const result = await measureLarge({
    files: Number(process.env.BENCH_CHECKPOINT_LARGE_FILES ?? 100_000),
    megabytes: Number(process.env.BENCH_CHECKPOINT_LARGE_MB ?? 1024),
    log: (line) => console.error(`[bench] ${line}`),
    ...options,
  });
  console.log(table(result));
  const out = join(dirname(fileURLToPath(import.meta.url)), 'results', 'checkpoints-large.json');
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, `${JSON.stringify({ date: new Date().toISOString(), ...result }, null, 2)}\n`);
  console.error(`[bench] wrote ${out}`);
  return result;
}

if (isMain(import.meta.url)) await run();
