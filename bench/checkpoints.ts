/**
 * Checkpoint store against plain git on the same synthetic agent root (20 000 files, ~200 MB, with a
 * node_modules). Measures one checkpoint after a one-file change, a rollback across 5 checkpoints, and
 * the disk growth of 50 small checkpoints, beside `git add -A && git commit` and
 * `git reset --hard && git clean -fd` on a plain repository in a copy of the tree.
 *
 *   node_modules/.bin/node bench/checkpoints.ts
 *
 * Prints a table and writes bench/results/checkpoints.json. Temp directories are removed at the end.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { CheckpointStore } from '../src/checkpoints/index.ts';

const exec = promisify(execFile);

export type BenchOptions = {
  /** [files=20000] */
  files?: number;
  /** [megabytes=200] Approximate total size of the tree. */
  megabytes?: number;
  /** [reps=7] Repetitions of the timed single-checkpoint and rollback measurements. */
  reps?: number;
  /** [growthCheckpoints=50] */
  growthCheckpoints?: number;
  log?: (line: string) => void;
};

export type Comparison = { ribosomeMs: number; plainMs: number; ratio: number; samples: number };

export type BenchResult = {
  tree: { files: number; bytes: number; nodeModulesFiles: number };
  gitVersion: string;
  initialCheckpoint: Comparison;
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
  targets: { maxRatio: number; maxCheckpointMs: number; met: boolean };
};

const MAX_RATIO = 1.3;
const MAX_CHECKPOINT_MS = 300;

export async function measure(options: BenchOptions = {}): Promise<BenchResult> {
  const files = options.files ?? 20_000;
  const megabytes = options.megabytes ?? 200;
  const reps = options.reps ?? 7;
  const growthCheckpoints = options.growthCheckpoints ?? 50;
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

    const opened = await CheckpointStore.open({ executionDir: ours, workTree: agentRoot });
    if (!opened.ok) throw new Error(opened.error.message);
    const store = opened.value;
    const relaxed = await CheckpointStore.open({ executionDir: ours, workTree: agentRoot, durable: false });
    if (!relaxed.ok) throw new Error(relaxed.error.message);
    const git = plainGit(plain);

    log('initial checkpoint of each');
    const initialOurs = await time(async () => must(await store.startRun('bench')));
    const initialPlain = await time(async () => {
      await git('init', '-q');
      await git('add', '-A');
      await git('commit', '-q', '-m', 'initial');
    });

    let step = 0;
    const checkpoint = async (target: CheckpointStore = store) =>
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
      oneRelaxed.push(await time(() => checkpoint(relaxed.value)));
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
      backOurs.push(await time(async () => must(await store.restore(startOurs))));
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
    for (let i = 0; i < 5; i++) listTimes.push(await time(async () => must(await store.list('bench'))));

    const one = compare(oneOurs, onePlain);
    const back = compare(backOurs, backPlain);
    const result: BenchResult = {
      tree: { files: tree.files, bytes: tree.bytes, nodeModulesFiles: tree.nodeModulesFiles },
      gitVersion: store.gitVersion,
      initialCheckpoint: compare([initialOurs], [initialPlain]),
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
      targets: {
        maxRatio: MAX_RATIO,
        maxCheckpointMs: MAX_CHECKPOINT_MS,
        met:
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

/** Deterministic files: mostly small text (node_modules, src), some large incompressible assets. */
export function generateTree(roots: string[], files: number, bytes: number) {
  const random = xorshift(0x5eed);
  const words = [
    'const',
    'function',
    'return',
    'export',
    'import',
    'value',
    'index',
    'module',
    '=>',
    '{',
    '}',
    ';',
  ];
  const text = Buffer.from(
    Array.from({ length: 400_000 }, () => words[Math.floor(random() * words.length)]).join(' '),
  );
  const noise = Buffer.alloc(8 * 1024 * 1024);
  for (let i = 0; i < noise.length; i += 4) noise.writeUInt32LE(Math.floor(random() * 2 ** 32), i);

  const largeCount = Math.max(1, Math.round(files / 200));
  const smallCount = files - largeCount;
  // Half the bytes in a few large files, half spread over the small ones.
  const smallAverage = bytes / 2 / smallCount;
  const largeAverage = bytes / 2 / largeCount;
  const nodeModulesFiles = Math.round(smallCount * 0.6);
  const smallFiles: string[] = [];
  let total = 0;
  const put = (path: string, content: Buffer) => {
    for (const root of roots) {
      mkdirSync(dirname(join(root, path)), { recursive: true });
      writeFileSync(join(root, path), content);
    }
    total += content.length;
  };
  for (let i = 0; i < smallCount; i++) {
    const path =
      i < nodeModulesFiles
        ? `node_modules/pkg-${Math.floor(i / 40)}/${i % 3 === 0 ? 'dist' : 'lib'}/file-${i}.js`
        : `src/module-${Math.floor(i / 30)}/file-${i}.ts`;
    const size = Math.max(64, Math.round(smallAverage * (0.2 + random() * 1.6)));
    const start = Math.floor(random() * (text.length - size));
    put(path, Buffer.concat([Buffer.from(`// ${path}\n`), text.subarray(start, start + size)]));
    if (!path.startsWith('node_modules')) smallFiles.push(path);
  }
  for (let i = 0; i < largeCount; i++) {
    const size = Math.min(noise.length - 1, Math.round(largeAverage * (0.5 + random())));
    const start = Math.floor(random() * (noise.length - size));
    put(`assets/blob-${i}.bin`, Buffer.concat([Buffer.from(`${i}\n`), noise.subarray(start, start + size)]));
  }
  return { files, bytes: total, nodeModulesFiles, smallFiles };
}

function changeFile(root: string, path: string, step: number): void {
  writeFileSync(join(root, path), `// changed at step ${step}\n`, { flag: 'a' });
}

/** Modify two files, add one, delete one: a typical small codon. */
function smallChanges(root: string, smallFiles: string[], step: number): void {
  changeFile(root, smallFiles[(step * 31) % smallFiles.length]!, step);
  changeFile(root, smallFiles[(step * 37 + 11) % smallFiles.length]!, step);
  writeFileSync(join(root, `src/added-${step}.ts`), `export const step = ${step};\n`);
  const victim = join(root, `src/added-${step - 1}.ts`);
  try {
    unlinkSync(victim);
  } catch {}
}

function plainGit(cwd: string) {
  const env = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: cwd,
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_AUTHOR_NAME: 'bench',
    GIT_AUTHOR_EMAIL: 'bench@example.com',
    GIT_COMMITTER_NAME: 'bench',
    GIT_COMMITTER_EMAIL: 'bench@example.com',
    // As in the store: a background auto-gc would race the timings and the disk measurement.
    GIT_CONFIG_COUNT: '1',
    GIT_CONFIG_KEY_0: 'gc.auto',
    GIT_CONFIG_VALUE_0: '0',
  };
  return async (...args: string[]) =>
    (await exec('git', args, { cwd, env, maxBuffer: 64 * 1024 * 1024, encoding: 'utf8' })).stdout;
}

/** Bytes allocated on disk (blocks, not apparent sizes: small loose objects take a block each). */
function diskUsage(dir: string): number {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile())
      total += (statSync(join(entry.parentPath, entry.name), { throwIfNoEntry: false })?.blocks ?? 0) * 512;
  }
  return total;
}

async function time(task: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await task();
  return performance.now() - start;
}

function must<T>(
  result: { ok: true; value: T } | { ok: false; error: { code: string; message: string } },
): T {
  if (!result.ok) throw new Error(`${result.error.code}: ${result.error.message}`);
  return result.value;
}

function compare(ours: number[], plain: number[]): Comparison {
  const ribosomeMs = median(ours);
  const plainMs = median(plain);
  return { ribosomeMs, plainMs, ratio: round(ribosomeMs / plainMs), samples: ours.length };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  const value = sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
  return round(value);
}

function round(value: number): number {
  return Math.round(value * 100) / 100;
}

function xorshift(seed: number): () => number {
  let state = seed >>> 0 || 1;
  return () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 2 ** 32;
  };
}

function table(result: BenchResult): string {
  const ms = (v: number) => `${v.toFixed(0)} ms`;
  const mb = (v: number) => `${(v / 1024 / 1024).toFixed(2)} MB`;
  const rows: Array<[string, string, string, string]> = [
    ['', 'ribosome', 'plain git', 'ratio'],
    [
      'initial checkpoint (once)',
      ms(result.initialCheckpoint.ribosomeMs),
      ms(result.initialCheckpoint.plainMs),
      `${result.initialCheckpoint.ratio}`,
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
  ];
  const widths = [0, 1, 2, 3].map((c) => Math.max(...rows.map((r) => r[c]!.length)));
  const lines = rows.map((r) =>
    r.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]!) : cell.padStart(widths[c]!))).join('   '),
  );
  const header = `${result.tree.files} files, ${mb(result.tree.bytes)} (${result.tree.nodeModulesFiles} in node_modules), git ${result.gitVersion}`;
  const verdict = `targets (ratio <= ${MAX_RATIO}, checkpoint < ${MAX_CHECKPOINT_MS} ms): ${result.targets.met ? 'met' : 'NOT met'}`;
  return [header, ...lines, verdict].join('\n');
}

/** Measures, prints the table and writes bench/results/checkpoints.json (what `npm run bench` calls). */
export async function run(options: BenchOptions = {}): Promise<BenchResult> {
  const result = await measure({ log: (line) => console.error(`[bench] ${line}`), ...options });
  console.log(table(result));
  const out = join(dirname(fileURLToPath(import.meta.url)), 'results', 'checkpoints.json');
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, `${JSON.stringify({ date: new Date().toISOString(), ...result }, null, 2)}\n`);
  console.error(`[bench] wrote ${out}`);
  return result;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await run();
