/**
 * Checkpoint store against plain git on the same synthetic agent root (20 000 files, ~200 MB, with a
 * node_modules). Measures the first checkpoint (beside `git init && git add -A && git commit`), one
 * checkpoint after a one-file change, a rollback across 5 checkpoints, and the disk growth of 50 small
 * checkpoints, beside `git add -A && git commit` and `git reset --hard && git clean -fd` on a plain
 * repository in a copy of the tree; and whether a checkpoint costs more as a run's history grows (400
 * checkpoints of a small tree, as a long plan takes them); and the gits (trace2) a checkpoint and a
 * restore run. The 100 000-file tree is
 * bench/checkpoints-large.ts.
 *
 *   node_modules/.bin/node bench/checkpoints.ts
 *   BENCH_CHECKPOINT_FILES=2000 BENCH_CHECKPOINT_MB=20 node_modules/.bin/node bench/checkpoints.ts
 *
 * Prints a table and writes bench/results/checkpoints.json. Temp directories are removed at the end.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CheckpointStore } from '../src/execution/checkpoints/index.ts';
import {
  type Comparison,
  changeFile,
  compare,
  diskUsage,
  generateTree,
  median,
  must,
  plainGit,
  round,
  smallChanges,
  time,
  timed,
  tracingGit,
} from './checkpoint-tree.ts';
import { isMain } from './stats.ts';

export type BenchOptions = {
  /** [files=20000] */
  files?: number;
  /** [megabytes=200] Approximate total size of the tree. */
  megabytes?: number;
  /** [reps=7] Repetitions of the timed single-checkpoint and rollback measurements. */
  reps?: number;
  /** [initialReps=3] First checkpoints of the tree, each into a new store (and a new plain .git). */
  initialReps?: number;
  /** [growthCheckpoints=50] */
  growthCheckpoints?: number;
  /** [historyCheckpoints=400] Checkpoints of the long-history measurement. */
  historyCheckpoints?: number;
  log?: (line: string) => void;
};

export type BenchResult = {
  tree: { files: number; bytes: number; nodeModulesFiles: number };
  gitVersion: string;
  initialCheckpoint: Comparison & { ribosomeCpuMs: number; plainCpuMs: number; cpuRatio: number };
  checkpointAfterOneChange: Comparison & { ribosomeNotDurableMs: number };
  rollbackAcross5: Comparison;
  growth50: {
    checkpoints: number;
    ribosomeBytes: number;
    plainBytes: number;
    ratio: number;
    ribosomeMedianMs: number;
    plainMedianMs: number;
  };
  listMs: number;
  /** Median checkpoint (and list) time over the first and the last 50 of a long history. */
  history: {
    checkpoints: number;
    firstMs: number;
    lastMs: number;
    ratio: number;
    listFirstMs: number;
    listLastMs: number;
  };
  /** The gits each operation runs (trace2), on a 200-file tree. */
  gits: { unchanged: string[]; oneChange: string[]; restore: string[] };
  targets: { maxRatio: number; maxCheckpointMs: number; met: boolean };
};

const MAX_RATIO = 1.3;
const MAX_CHECKPOINT_MS = 300;

export async function measure(options: BenchOptions = {}): Promise<BenchResult> {
  const files = options.files ?? 20_000;
  const megabytes = options.megabytes ?? 200;
  const reps = options.reps ?? 7;
  const initialReps = options.initialReps ?? 3;
  const growthCheckpoints = options.growthCheckpoints ?? 50;
  const historyCheckpoints = options.historyCheckpoints ?? 400;
  const started = performance.now();
  const say = options.log ?? (() => {});
  const log = (line: string) => say(`${((performance.now() - started) / 1000).toFixed(1)}s ${line}`);
  const root = mkdtempSync(join(tmpdir(), 'ribosome-bench-checkpoints-'));
  try {
    const ours = join(root, 'ours');
    const plain = join(root, 'plain');
    log(`generating ${files} files, ~${megabytes} MB, twice, in ${root}`);
    const tree = generateTree([join(ours, 'agentRoot'), plain], files, megabytes * 1024 * 1024);
    const agentRoot = join(ours, 'agentRoot');

    log(`first checkpoint of each, ${initialReps} times`);
    const git = plainGit(plain);
    const initialOurs: Array<{ ms: number; cpuMs: number }> = [];
    const initialPlain: Array<{ ms: number; cpuMs: number }> = [];
    let store: CheckpointStore | undefined;
    for (let i = 0; i < initialReps; i++) {
      // Each time a new store (and a new plain .git) beside the same tree, so each writes everything.
      const executionDir = join(ours, `execution-${i}`);
      const first = async () => {
        const opened = must(await CheckpointStore.open({ executionDir, workTree: agentRoot }));
        must(await opened.startRun('bench'));
        store = opened;
      };
      rmSync(join(plain, '.git'), { recursive: true, force: true });
      const plainFirst = async () => {
        await git('init', '-q');
        await git('add', '-A');
        await git('commit', '-q', '-m', 'initial');
      };
      // Alternate who goes first, so neither always meets a warm cache.
      if (i % 2 === 0) {
        initialOurs.push(await timed(first));
        initialPlain.push(await timed(plainFirst));
      } else {
        initialPlain.push(await timed(plainFirst));
        initialOurs.push(await timed(first));
      }
      if (i < initialReps - 1) rmSync(executionDir, { recursive: true, force: true });
    }
    if (!store) throw new Error('no first checkpoint');
    const relaxed = must(
      await CheckpointStore.open({ gitDir: store.gitDir, workTree: agentRoot, durable: false }),
    );

    let step = 0;
    const checkpoint = async (target: CheckpointStore = store!) =>
      must(
        await target.create({
          runId: 'bench',
          codonId: `c${step}`,
          codonName: `Codon ${step}`,
          checkpointType: 'completed',
          status: 'completed',
        }),
      ).sha;
    const plainCommit = async () => {
      await git('add', '-A');
      await git('commit', '-q', '--allow-empty', '-m', `step ${step}`);
    };

    log(`checkpoint after one change, ${reps} times`);
    const oneOurs: number[] = [];
    const onePlain: number[] = [];
    const oneRelaxed: number[] = [];
    for (let i = 0; i < reps; i++) {
      step += 1;
      const path = tree.smallFiles[(i * 7919) % tree.smallFiles.length]!;
      changeFile(agentRoot, path, step);
      changeFile(plain, path, step);
      // Alternate who goes first, so neither always meets a warm cache.
      if (i % 2 === 0) {
        oneOurs.push(await time(() => checkpoint()));
        onePlain.push(await time(plainCommit));
      } else {
        onePlain.push(await time(plainCommit));
        oneOurs.push(await time(() => checkpoint()));
      }
      step += 1;
      changeFile(agentRoot, path, step);
      oneRelaxed.push(await time(() => checkpoint(relaxed)));
      await plainCommit();
    }

    log(`rollback across 5 checkpoints, ${reps} times`);
    const backOurs: number[] = [];
    const backPlain: number[] = [];
    for (let i = 0; i < reps; i++) {
      const startOurs = await checkpoint();
      await plainCommit();
      const startPlain = (await git('rev-parse', 'HEAD')).trim();
      for (let k = 0; k < 5; k++) {
        step += 1;
        for (const dir of [agentRoot, plain]) smallChanges(dir, tree.smallFiles, step);
        await checkpoint();
        await plainCommit();
      }
      backOurs.push(await time(async () => must(await store!.restore(startOurs))));
      backPlain.push(
        await time(async () => {
          await git('reset', '-q', '--hard', startPlain);
          await git('clean', '-fdq');
        }),
      );
    }

    log(`disk growth of ${growthCheckpoints} checkpoints`);
    const gitDirOurs = store.gitDir;
    const gitDirPlain = join(plain, '.git');
    const diskBefore = [diskUsage(gitDirOurs), diskUsage(gitDirPlain)] as const;
    const growOurs: number[] = [];
    const growPlain: number[] = [];
    for (let i = 0; i < growthCheckpoints; i++) {
      step += 1;
      for (const dir of [agentRoot, plain]) {
        changeFile(dir, tree.smallFiles[(step * 104729) % tree.smallFiles.length]!, step);
        writeFileSync(join(dir, `src/new-${step}.txt`), `new file ${step}\n`);
      }
      growOurs.push(await time(() => checkpoint()));
      growPlain.push(await time(plainCommit));
    }
    const growth = [diskUsage(gitDirOurs) - diskBefore[0], diskUsage(gitDirPlain) - diskBefore[1]] as const;

    log('listing');
    const listTimes: number[] = [];
    for (let i = 0; i < 5; i++) listTimes.push(await time(async () => must(await store!.list('bench'))));

    log(`a history of ${historyCheckpoints} checkpoints`);
    const history = await longHistory(join(root, 'history'), historyCheckpoints);
    const gits = await gitsPerStep(join(root, 'gits'));

    const one = compare(oneOurs, onePlain);
    const back = compare(backOurs, backPlain);
    const result: BenchResult = {
      tree: { files: tree.files, bytes: tree.bytes, nodeModulesFiles: tree.nodeModulesFiles },
      gitVersion: store.gitVersion,
      initialCheckpoint: {
        ...compare(
          initialOurs.map((t) => t.ms),
          initialPlain.map((t) => t.ms),
        ),
        ribosomeCpuMs: median(initialOurs.map((t) => t.cpuMs)),
        plainCpuMs: median(initialPlain.map((t) => t.cpuMs)),
        cpuRatio: round(median(initialOurs.map((t) => t.cpuMs)) / median(initialPlain.map((t) => t.cpuMs))),
      },
      checkpointAfterOneChange: { ...one, ribosomeNotDurableMs: median(oneRelaxed) },
      rollbackAcross5: back,
      growth50: {
        checkpoints: growthCheckpoints,
        ribosomeBytes: growth[0],
        plainBytes: growth[1],
        ratio: round(growth[0] / growth[1]),
        ribosomeMedianMs: median(growOurs),
        plainMedianMs: median(growPlain),
      },
      listMs: median(listTimes),
      history,
      gits,
      targets: {
        maxRatio: MAX_RATIO,
        maxCheckpointMs: MAX_CHECKPOINT_MS,
        met:
          wallRatio(initialOurs, initialPlain) <= MAX_RATIO &&
          one.ratio <= MAX_RATIO &&
          back.ratio <= MAX_RATIO &&
          growth[0] / growth[1] <= MAX_RATIO &&
          one.ribosomeMs < MAX_CHECKPOINT_MS,
      },
    };
    return result;
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

function wallRatio(ours: Array<{ ms: number }>, plain: Array<{ ms: number }>): number {
  return median(ours.map((t) => t.ms)) / median(plain.map((t) => t.ms));
}

/**
 * `count` checkpoints of a 2 000-file tree, each after a codon-like change (two files edited, one
 * added), a list of the run every second one (as rig setup and retries read the lineage): does the
 * cost per checkpoint grow with the history?
 */
async function longHistory(dir: string, count: number): Promise<BenchResult['history']> {
  const agentRoot = join(dir, 'agentRoot');
  const tree = generateTree([agentRoot], 2000, 20 * 1024 * 1024);
  const store = must(await CheckpointStore.open({ executionDir: dir, workTree: agentRoot }));
  must(await store.startRun('long'));
  const times: number[] = [];
  const lists: number[] = [];
  for (let i = 0; i < count; i++) {
    changeFile(agentRoot, tree.smallFiles[(i * 31) % tree.smallFiles.length]!, i);
    changeFile(agentRoot, tree.smallFiles[(i * 37 + 11) % tree.smallFiles.length]!, i);
    writeFileSync(join(agentRoot, `src/added-${i}.ts`), `export const step = ${i};\n`);
    times.push(
      await time(async () =>
        must(
          await store.create({
            runId: 'long',
            codonId: `c${i >> 1}`,
            codonName: `Codon ${i >> 1}`,
            checkpointType: i % 2 === 0 ? 'rig-setup' : 'completed',
            status: i % 2 === 0 ? 'preparing' : 'completed',
          }),
        ),
      ),
    );
    if (i % 2 === 0) lists.push(await time(async () => must(await store.list('long'))));
  }
  const window = Math.min(50, Math.floor(count / 2));
  const firstMs = median(times.slice(0, window));
  const lastMs = median(times.slice(-window));
  const listWindow = Math.max(1, Math.floor(window / 2));
  return {
    checkpoints: count,
    firstMs,
    lastMs,
    ratio: round(lastMs / firstMs),
    listFirstMs: median(lists.slice(0, listWindow)),
    listLastMs: median(lists.slice(-listWindow)),
  };
}

/** The gits a checkpoint of an unchanged tree, one after a one-file change and a restore run. */
async function gitsPerStep(dir: string): Promise<BenchResult['gits']> {
  const agentRoot = join(dir, 'agentRoot');
  const tree = generateTree([agentRoot], 200, 1024 * 1024);
  const trace = tracingGit(dir);
  const store = must(
    await CheckpointStore.open({ executionDir: dir, workTree: agentRoot, gitBinary: trace.binary }),
  );
  const first = must(await store.startRun('gits')).sha;
  const checkpoint = async () =>
    must(
      await store.create({
        runId: 'gits',
        codonId: 'c',
        codonName: 'Codon',
        checkpointType: 'completed',
        status: 'completed',
      }),
    );
  await checkpoint();
  trace.read();
  await checkpoint();
  const unchanged = trace.read().map((run) => run.name);
  changeFile(agentRoot, tree.smallFiles[0]!, 1);
  await checkpoint();
  const oneChange = trace.read().map((run) => run.name);
  smallChanges(agentRoot, tree.smallFiles, 2);
  await checkpoint();
  trace.read();
  must(await store.restore(first));
  return { unchanged, oneChange, restore: trace.read().map((run) => run.name) };
}

function table(result: BenchResult): string {
  const ms = (v: number) => `${v.toFixed(0)} ms`;
  const mb = (v: number) => `${(v / 1024 / 1024).toFixed(2)} MB`;
  const rows: Array<[string, string, string, string]> = [
    ['', 'ribosome', 'plain git', 'ratio'],
    [
      `first checkpoint (median of ${result.initialCheckpoint.samples})`,
      ms(result.initialCheckpoint.ribosomeMs),
      ms(result.initialCheckpoint.plainMs),
      `${result.initialCheckpoint.ratio}`,
    ],
    [
      '  CPU (this process and its gits)',
      ms(result.initialCheckpoint.ribosomeCpuMs),
      ms(result.initialCheckpoint.plainCpuMs),
      `${result.initialCheckpoint.cpuRatio}`,
    ],
    [
      `checkpoint, 1 file changed (median of ${result.checkpointAfterOneChange.samples})`,
      ms(result.checkpointAfterOneChange.ribosomeMs),
      ms(result.checkpointAfterOneChange.plainMs),
      `${result.checkpointAfterOneChange.ratio}`,
    ],
    ['  same, durable: false', ms(result.checkpointAfterOneChange.ribosomeNotDurableMs), '', ''],
    [
      `rollback across 5 checkpoints (median of ${result.rollbackAcross5.samples})`,
      ms(result.rollbackAcross5.ribosomeMs),
      ms(result.rollbackAcross5.plainMs),
      `${result.rollbackAcross5.ratio}`,
    ],
    [
      `disk growth, ${result.growth50.checkpoints} small checkpoints`,
      mb(result.growth50.ribosomeBytes),
      mb(result.growth50.plainBytes),
      `${result.growth50.ratio}`,
    ],
    ['  median time of each', ms(result.growth50.ribosomeMedianMs), ms(result.growth50.plainMedianMs), ''],
    ['list a run (median of 5)', ms(result.listMs), '', ''],
    [
      `checkpoint, first / last 50 of ${result.history.checkpoints} (2 000 files)`,
      ms(result.history.firstMs),
      ms(result.history.lastMs),
      `${result.history.ratio}`,
    ],
    ['  list the run, first / last 25', ms(result.history.listFirstMs), ms(result.history.listLastMs), ''],
    ...(['unchanged', 'oneChange', 'restore'] as const).map((step): [string, string, string, string] => [
      `gits of ${{ unchanged: 'a checkpoint, nothing changed', oneChange: 'a checkpoint, 1 file changed', restore: 'a restore' }[step]}`,
      `${result.gits[step].length}`,
      '',
      result.gits[step].join(' '),
    ]),
  ];
  const widths = [0, 1, 2, 3].map((c) => Math.max(...rows.map((r) => r[c]!.length)));
  const lines = rows.map((r) =>
    r.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]!) : cell.padStart(widths[c]!))).join('   '),
  );
  const header = `${result.tree.files} files, ${mb(result.tree.bytes)} (${result.tree.nodeModulesFiles} in node_modules), git ${result.gitVersion}`;
  const verdict = `targets (wall ratios <= ${MAX_RATIO}, checkpoint < ${MAX_CHECKPOINT_MS} ms): ${result.targets.met ? 'met' : 'NOT met'}`;
  return [header, ...lines, verdict].join('\n');
}

/** Measures, prints the table and writes bench/results/checkpoints.json (what `npm run bench` calls). */
export async function run(options: BenchOptions = {}): Promise<BenchResult> {
  const result = await measure({
    files: Number(process.env.BENCH_CHECKPOINT_FILES ?? 20_000),
    megabytes: Number(process.env.BENCH_CHECKPOINT_MB ?? 200),
    log: (line) => console.error(`[bench] ${line}`),
    ...options,
  });
  console.log(table(result));
  const out = join(dirname(fileURLToPath(import.meta.url)), 'results', 'checkpoints.json');
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, `${JSON.stringify({ date: new Date().toISOString(), ...result }, null, 2)}\n`);
  console.error(`[bench] wrote ${out}`);
  return result;
}

if (isMain(import.meta.url)) await run();
