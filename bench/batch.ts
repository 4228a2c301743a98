/**
 * `ribosome batch` (docs/batches.md), offline on the scripted provider, in a temp dir:
 * - throughput: BATCH_BENCH_JOBS (default 20) one-codon jobs (the built-in agent writes a file) by
 *   `ribosome batch --parallel N` for each N of BATCH_BENCH_PARALLEL (default 1,2,4), against the
 *   same jobs' `ribosome run`s one after another, as a shell loop runs them (the baseline, measured
 *   in the same round). Wall time, jobs a minute, the speed-up over the loop: medians over
 *   BATCH_BENCH_ROUNDS rounds, the order of the runs reversed every other round. Default 1: a round
 *   takes about 4.5 minutes on the 2-core development machine (a job's run 3 to 5 s there), the whole
 *   bench under 6; the per-job figures are medians of 20 runs each.
 * - jobs that wait on their model (BATCH_BENCH_WAITING_JOBS, default 8, each answer after 1.5 s) at
 *   one job a core and at two: whether jobs a minute still grows past the cores when jobs idle.
 * - overhead: what the batch adds per job at --parallel 1 (overhead() says how it is measured).
 *   Goal: under 100 ms a job.
 * - memory: one job's process tree (its `ribosome run`, the agent, their children), sampled every
 *   100 ms, for the built-in agent and each agent CLI installed (BATCH_BENCH_AGENTS, default all);
 *   the batch process's own RSS during the throughput runs.
 * - what --parallel's default should be, from those figures, beside what defaultParallel() says.
 * `npm run bench -- batch`; writes bench/results/batch.json.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, freemem, loadavg, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { defaultParallel, JOBS_PER_CORE, MEMORY_PER_JOB } from '../src/clients/batch/run/parallel.ts';
import { byHand, type JobSpan, viaBatch, writeBenchFiles } from './batch-jobs.ts';
import { type JobMemory, jobMemory } from './batch-memory.ts';
import { isMain, mb, median, round } from './stats.ts';

const HERE = import.meta.dirname;
const JOBS = Number(process.env.BATCH_BENCH_JOBS ?? 20);
const ROUNDS = Number(process.env.BATCH_BENCH_ROUNDS ?? 1);
const PARALLEL = (process.env.BATCH_BENCH_PARALLEL ?? '1,2,4').split(',').map(Number);
const AGENTS = (process.env.BATCH_BENCH_AGENTS ?? 'builtin,claude-code,codex,gemini,opencode').split(',');
/** Each of the memory job's (and a waiting job's) two answers waits this long: the agent idles on its model. */
const MEMORY_DELAY_MS = 1_500;
const WAITING_JOBS = Number(process.env.BATCH_BENCH_WAITING_JOBS ?? 8);

const load = () =>
  loadavg()
    .map((l) => round(l, 2))
    .join(' ');
const sum = (values: readonly number[]) => values.reduce((a, b) => a + b, 0);
const s = (ms: number) => `${round(ms / 1000, 1)} s`;

type Mode = 'by hand' | `--parallel ${number}`;
type BatchRun = Awaited<ReturnType<typeof viaBatch>>;
type Round = { hand: Awaited<ReturnType<typeof byHand>>; batches: Map<number, BatchRun>; load: string[] };

/**
 * Where the batch's time at --parallel 1 went, in ms. On its critical path (nothing else runs while
 * it works): its own start (to its first job's spawn) and end (from its last job's exit), the gaps
 * between one job's exit and the next one's spawn (together: its wall minus its jobs' durations in
 * summary.json, all from one run), and how much later than by hand it sees a job's exit after the
 * run's last journal event. Beside the jobs: its CPU while they run. Against the loop of the same
 * round, as cross-checks: the whole walls, and each run's start to its first event, both as noisy as
 * the machine (a job's run varies by a second here; the batch's parts are a few ms each).
 */
function overhead(run: BatchRun, hand: Round['hand']) {
  const jobs = run.jobs;
  const n = jobs.length;
  const startMs = (jobs[0]?.startMs ?? run.startEpochMs) - run.startEpochMs;
  const endMs = run.endEpochMs - Math.max(...jobs.map((j) => j.endMs));
  const gaps = jobs.slice(1).map((j, i) => j.startMs - (jobs[i]?.endMs ?? j.startMs));
  const toFirst = (list: readonly JobSpan[]) => median(list.map((j) => j.firstEventMs - j.startMs));
  const afterLast = (list: readonly JobSpan[]) => median(list.map((j) => j.endMs - j.lastEventMs));
  const outsideJobs = (run.wallMs - sum(jobs.map((j) => j.durationMs))) / n;
  const exitSeenLater = afterLast(jobs) - afterLast(hand.runs);
  return {
    criticalPathPerJobMs: outsideJobs + exitSeenLater,
    outsideJobsPerJobMs: outsideJobs,
    batchStartMs: startMs,
    batchEndMs: endMs,
    gapMedianMs: median(gaps),
    gapMaxMs: Math.max(0, ...gaps),
    lastEventToExitBatchMs: afterLast(jobs),
    lastEventToExitByHandMs: afterLast(hand.runs),
    cpuBesideJobsPerJobMs: ((run.memory?.rootCpuMs ?? 0) - startCpu(run)) / n,
    allInPerJobMs: (run.wallMs - hand.wallMs) / n,
    spawnToFirstEventBatchMs: toFirst(jobs),
    spawnToFirstEventByHandMs: toFirst(hand.runs),
    jobRunInBatchMedianMs: median(jobs.map((j) => j.durationMs)),
    jobRunByHandMedianMs: median(hand.runs.map((r) => r.durationMs)),
  };
}

/** The batch process's CPU time when it spawned its first job: its own start (Node, modules, the batch file). */
function startCpu(run: BatchRun): number {
  const first = run.jobs[0]?.startMs ?? 0;
  return run.memory?.rootCpu.filter((c) => c.atMs <= first).at(-1)?.cpuMs ?? 0;
}

async function throughput(dir: string) {
  const files = await writeBenchFiles(dir, JOBS);
  const modes: (number | 'hand')[] = ['hand', ...PARALLEL];
  const rounds: Round[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    const order = r % 2 === 0 ? modes : [...modes].reverse();
    const batches = new Map<number, BatchRun>();
    let hand: Round['hand'] | undefined;
    const loads: string[] = [];
    for (const mode of order) {
      const before = load();
      const runDir = join(dir, `round-${r}-${mode}`);
      let wall: number;
      if (mode === 'hand') {
        hand = await byHand(files, runDir);
        wall = hand.wallMs;
      } else {
        const batch = await viaBatch(files, runDir, mode);
        batches.set(mode, batch);
        wall = batch.wallMs;
      }
      rmSync(runDir, { recursive: true, force: true });
      loads.push(`${mode}: ${before}`);
      console.log(
        `  round ${r + 1}/${ROUNDS}: ${mode === 'hand' ? 'by hand' : `--parallel ${mode}`} ${s(wall)} (load before ${before}, after ${load()})`,
      );
    }
    rounds.push({ hand: hand!, batches, load: loads });
  }
  const handWalls = rounds.map((r) => r.hand.wallMs);
  const rows: { mode: Mode; walls: number[]; speedups: number[]; perJobMs: number[]; running: number[] }[] = [
    { mode: 'by hand', walls: handWalls, speedups: handWalls.map(() => 1), perJobMs: [], running: [] },
  ];
  rows[0]!.perJobMs = rounds.flatMap((r) => r.hand.runs.map((x) => x.durationMs));
  rows[0]!.running = handWalls.map(() => 1);
  for (const p of PARALLEL) {
    const runs = rounds.map((r) => r.batches.get(p)!);
    rows.push({
      mode: `--parallel ${p}`,
      walls: runs.map((x) => x.wallMs),
      speedups: runs.map((x, i) => handWalls[i]! / x.wallMs),
      perJobMs: runs.flatMap((x) => x.jobs.map((j) => j.durationMs)),
      running: runs.map((x) => sum(x.jobs.map((j) => j.durationMs)) / x.wallMs),
    });
  }
  const table = rows.map((row) => ({
    mode: row.mode,
    wallMs: Math.round(median(row.walls)),
    jobsPerMinute: round((JOBS * 60_000) / median(row.walls), 1),
    speedup: round(median(row.speedups), 2),
    rounds: row.walls.map((w) => round(w / 1000, 1)),
    jobRunMedianMs: Math.round(median(row.perJobMs)),
    jobsRunningOnAverage: round(median(row.running), 2),
  }));
  const p1 = rounds.filter((r) => r.batches.has(1)).map((r) => overhead(r.batches.get(1)!, r.hand));
  const overheadMedians = p1.length
    ? Object.fromEntries(
        Object.keys(p1[0]!).map((k) => [k, Math.round(median(p1.map((o) => o[k as keyof typeof o])))]),
      )
    : undefined;
  const batchProcess = PARALLEL.map((p) => {
    const runs = rounds.map((r) => r.batches.get(p)!);
    return {
      parallel: p,
      peakRssMb: Math.max(...runs.map((x) => mb(x.memory?.processes[0]?.peakBytes ?? 0))),
      steadyRssMb: median(runs.map((x) => mb(x.memory?.steadyBytes ?? 0))),
      startCpuMs: Math.round(median(runs.map(startCpu))),
      cpuMsPerJob: Math.round(median(runs.map((x) => ((x.memory?.rootCpuMs ?? 0) - startCpu(x)) / JOBS))),
    };
  });
  const handCpu = rounds.flatMap((r) => r.hand.runs.flatMap((x) => (x.cpuMs === undefined ? [] : [x])));
  const coresPerQuickJob = handCpu.length
    ? round(median(handCpu.map((x) => (x.cpuMs ?? 0) / x.durationMs)), 2)
    : undefined;
  return {
    table,
    overhead: overheadMedians,
    batchProcess,
    coresPerQuickJob,
    loads: rounds.map((r) => r.load),
  };
}

type Throughput = Awaited<ReturnType<typeof throughput>>;
type Waiting = Awaited<ReturnType<typeof waiting>>;

/**
 * Jobs that wait on their model, as real ones do for most of their time: each of the two answers
 * after MEMORY_DELAY_MS. A batch of them at one job a core and at two, one run each.
 */
async function waiting(dir: string) {
  const files = await writeBenchFiles(join(dir, 'waiting'), WAITING_JOBS, MEMORY_DELAY_MS);
  const cores = availableParallelism();
  const rows: { parallel: number; wallMs: number; jobsPerMinute: number; jobRunMedianMs: number }[] = [];
  for (const parallel of [cores, 2 * cores]) {
    const before = load();
    const runDir = join(dir, `waiting-${parallel}`);
    const run = await viaBatch(files, runDir, parallel);
    rmSync(runDir, { recursive: true, force: true });
    console.log(
      `  waiting jobs at --parallel ${parallel}: ${s(run.wallMs)} (load before ${before}, after ${load()})`,
    );
    rows.push({
      parallel,
      wallMs: Math.round(run.wallMs),
      jobsPerMinute: round((WAITING_JOBS * 60_000) / run.wallMs, 1),
      jobRunMedianMs: Math.round(median(run.jobs.map((j) => j.durationMs))),
    });
  }
  return rows;
}

/** What the figures say --parallel's default should be on this machine, beside defaultParallel(). */
function parallelAdvice(t: Throughput, slow: Waiting, memory: JobMemory[]) {
  const measured = memory.flatMap((m) => ('peakMb' in m ? [m] : []));
  const heaviest = measured.reduce((a, b) => (b.peakMb > a.peakMb ? b : a), measured[0]!);
  const byMode = new Map(t.table.map((row) => [row.mode, row.jobsPerMinute]));
  const gains = PARALLEL.slice(1).map((p, i) => {
    const before = PARALLEL[i]!;
    return {
      from: before,
      to: p,
      gain: round((byMode.get(`--parallel ${p}`) ?? 0) / (byMode.get(`--parallel ${before}`) ?? 1), 2),
    };
  });
  const machine = { cores: availableParallelism(), freeBytes: freemem(), totalBytes: totalmem() };
  const byMemory = Math.floor((machine.freeBytes * 0.5) / ((heaviest?.peakMb ?? 0) * 1024 * 1024));
  return {
    machine: { cores: machine.cores, freeMb: mb(machine.freeBytes), totalMb: mb(machine.totalBytes) },
    defaultParallel: defaultParallel(machine),
    memoryPerJobAssumedMb: mb(MEMORY_PER_JOB),
    heaviestJob: heaviest ? { agent: heaviest.agent, peakMb: heaviest.peakMb } : undefined,
    jobsByMeasuredMemory: byMemory,
    gains,
    waitingGain:
      slow.length === 2 ? round((slow[1]?.jobsPerMinute ?? 0) / (slow[0]?.jobsPerMinute ?? 1), 2) : undefined,
    cpu: {
      quickJobCores: t.coresPerQuickJob,
      waitingJobCores: measured.map((m) => ({
        agent: m.agent,
        cores: m.cpuMs === undefined ? undefined : round(m.cpuMs / m.wallMs, 2),
      })),
    },
  };
}

function print(t: Throughput, slow: Waiting, memory: JobMemory[], advice: ReturnType<typeof parallelAdvice>) {
  console.log(`\nthroughput, ${JOBS} one-codon jobs, medians of ${ROUNDS} round${ROUNDS === 1 ? '' : 's'}:`);
  for (const row of t.table) {
    console.log(
      `  ${row.mode.padEnd(12)} ${s(row.wallMs).padStart(8)}  ${`${row.jobsPerMinute}`.padStart(5)} jobs/min  x${row.speedup} vs by hand` +
        `  (a job's run ${s(row.jobRunMedianMs)}, ${row.jobsRunningOnAverage} running on average; rounds ${row.rounds.join(', ')} s)`,
    );
  }
  for (const w of slow) {
    console.log(
      `  ${WAITING_JOBS} jobs waiting ${MEMORY_DELAY_MS} ms on each of their 2 answers, --parallel ${w.parallel}: ${s(w.wallMs)}, ${w.jobsPerMinute} jobs/min (a job's run ${s(w.jobRunMedianMs)}; one run)`,
    );
  }
  const o = t.overhead;
  if (o) {
    console.log('\noverhead of the batch at --parallel 1, per job (goal under 100 ms), medians:');
    console.log(
      `  on its critical path: ${o.criticalPathPerJobMs} ms  ${(o.criticalPathPerJobMs ?? 0) < 100 ? 'met' : 'MISSED'}` +
        ` = (its wall - its jobs' durations) / ${JOBS}: ${o.outsideJobsPerJobMs} ms` +
        ` (its start to the first job's spawn ${o.batchStartMs} ms, the last job's exit to its own ${o.batchEndMs} ms,` +
        ` a job's exit to the next one's spawn ${o.gapMedianMs} ms, max ${o.gapMaxMs} ms)`,
    );
    console.log(
      `    + a run's last event to its exit seen: ${o.lastEventToExitBatchMs} ms in the batch, ${o.lastEventToExitByHandMs} ms by hand`,
    );
    console.log(
      `  beside the jobs: the batch process's CPU after its start, ${o.cpuBesideJobsPerJobMs} ms a job (it reads the running jobs' journals every second)`,
    );
    console.log(
      `  cross-checks against the loop, as noisy as the machine: (batch wall - loop wall) / ${JOBS}: ${o.allInPerJobMs} ms;` +
        ` a run's spawn to its first event ${o.spawnToFirstEventBatchMs} ms in the batch, ${o.spawnToFirstEventByHandMs} ms by hand;` +
        ` a job's run ${o.jobRunInBatchMedianMs} ms, ${o.jobRunByHandMedianMs} ms by hand`,
    );
  }
  console.log(
    `\nmemory of one job's process tree, sampled every 100 ms (answers delayed ${MEMORY_DELAY_MS} ms):`,
  );
  for (const m of memory) {
    if ('skipped' in m) {
      console.log(`  ${m.agent.padEnd(12)} skipped: ${m.skipped}`);
      continue;
    }
    const cpu = m.cpuMs === undefined ? '' : `, CPU ${s(m.cpuMs)} (${round(m.cpuMs / m.wallMs, 2)} cores)`;
    console.log(
      `  ${m.agent.padEnd(12)} peak ${m.peakMb} MiB, steady ${m.steadyMb} MiB; ${m.processes} processes, largest ${m.largest.map((p) => `${p.name} ${p.peakMb}`).join(', ')} MiB; ${s(m.wallMs)}${cpu}`,
    );
  }
  for (const b of t.batchProcess) {
    console.log(
      `  the batch process at --parallel ${b.parallel}: peak ${b.peakRssMb} MiB, steady ${b.steadyRssMb} MiB; CPU ${b.startCpuMs} ms to its first job's spawn, then ${b.cpuMsPerJob} ms a job`,
    );
  }
  console.log(
    `\n--parallel's default on this machine (${advice.machine.cores} cores, ${advice.machine.freeMb} MiB free):`,
  );
  console.log(
    `  defaultParallel() says ${advice.defaultParallel} (${JOBS_PER_CORE} jobs a core, ${advice.memoryPerJobAssumedMb} MiB a job assumed, half the free memory)`,
  );
  if (advice.heaviestJob)
    console.log(
      `  the heaviest job measured (${advice.heaviestJob.agent}) peaks at ${advice.heaviestJob.peakMb} MiB: half the free memory holds ${advice.jobsByMeasuredMemory}`,
    );
  if (advice.gains.length > 0)
    console.log(
      `  jobs/min gained: ${advice.gains.map((g) => `--parallel ${g.from} -> ${g.to} x${g.gain}`).join(', ')}`,
    );
  if (advice.waitingGain !== undefined)
    console.log(`  jobs/min gained by jobs that wait: one job a core -> two x${advice.waitingGain}`);
  console.log(
    `  CPU: a quick job keeps ${advice.cpu.quickJobCores} cores busy; a job waiting on its model: ${advice.cpu.waitingJobCores.map((c) => `${c.agent} ${c.cores}`).join(', ')}`,
  );
}

export async function run() {
  const dir = mkdtempSync(join(tmpdir(), 'ribosome-bench-batch-'));
  try {
    console.log(
      `batch: ${JOBS} jobs, --parallel ${PARALLEL.join(', ')}, ${ROUNDS} round${ROUNDS === 1 ? '' : 's'}; ${availableParallelism()} cores; load ${load()} (1, 5, 15 min)`,
    );
    const started = performance.now();
    const t = await throughput(dir);
    const slow = WAITING_JOBS > 0 ? await waiting(dir) : [];
    const loadBeforeMemory = load();
    const memory = await jobMemory(dir, AGENTS, MEMORY_DELAY_MS);
    const advice = parallelAdvice(t, slow, memory);
    print(t, slow, memory, advice);
    const seconds = Math.round((performance.now() - started) / 1000);
    console.log(
      `\n${seconds} s in all; load at the end ${load()} (memory part started at ${loadBeforeMemory})`,
    );
    const result = {
      jobs: JOBS,
      rounds: ROUNDS,
      parallel: PARALLEL,
      seconds,
      throughput: t.table,
      waiting: slow,
      overhead: t.overhead,
      batchProcess: t.batchProcess,
      memory,
      parallelAdvice: advice,
      load: { perRun: t.loads, beforeMemory: loadBeforeMemory, end: load() },
    };
    mkdirSync(join(HERE, 'results'), { recursive: true });
    writeFileSync(join(HERE, 'results', 'batch.json'), `${JSON.stringify(result, null, 2)}\n`);
    return result;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (isMain(import.meta.url)) await run();
