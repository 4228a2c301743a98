/**
 * What the batch benchmark runs: its files (a one-codon plan, the scripted provider's answers, the
 * batch file) and the two ways of running its jobs, each a timed process: `ribosome batch`, and each
 * job's own `ribosome run` one after another, as a shell loop would.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CLI_MAIN } from '../src/clients/background/ribosome-process.ts';
import { jobRunArgs } from '../src/clients/batch/run/job-args.ts';
import { batchProblemsText, loadBatch } from '../src/clients/batch/run/load-batch.ts';
import { BatchSummary } from '../src/clients/batch/summary-schema.ts';
import { openExecutionDb } from '../src/clients/runs/read-execution.ts';
import type { Job } from '../src/plan/batch-schema.ts';
import { type Scope, type TreeMemory, watchTree } from './tree-memory.ts';

/** One codon; the built-in agent writes a file and says so: no gate, no sentinel. */
const PLAN = `name: bench-job
agent: builtin
codons:
  - id: write
    prompt: "Bench write: write out.txt."
`;

/** The quick job's answers (no delay) and, for the memory part, each agent CLI's in its own tools. */
export function script(delayMs: number): string {
  const track = (name: string, match: string, tool: string) => `  - name: ${name}
    match: ${match}
    loop: true
    turns:
      - content:
          - text: Writing.
          - tool_use: ${tool}
        delayMs: ${delayMs}
      - content:
          - text: Wrote out.txt.
        delayMs: ${delayMs}
`;
  return `tracks:
  - name: claude-code-title
    match: { system: "Generate a concise, sentence-case title" }
    turns: []
    whenExhausted: { content: [{ text: '{"title": "Write a file"}' }] }
${track('opencode', '{ api: anthropic, firstUser: "Bench opencode" }', '{ name: write, input: { filePath: out.txt, content: done } }')}${track('anthropic', '{ api: anthropic, firstUser: "Bench write" }', '{ name: Write, input: { file_path: out.txt, content: done } }')}${track('codex', '{ api: openai-responses, firstUser: "Bench write" }', '{ name: exec_command, input: { cmd: "echo done > out.txt" } }')}${track('gemini', '{ api: gemini, firstUser: "Bench write" }', '{ name: write_file, input: { file_path: out.txt, content: done } }')}  - name: tool-less
    match: { tools: false }
    turns: []
    whenExhausted: { content: [{ text: OK. }] }
turns: []
whenExhausted: { error: { status: 400, message: "bench: no track answers this request" } }
`;
}

/** The one-codon plan for `agent` (opencode's prompt picks its own track: its tools differ). */
export function planFor(agent: string, model: string | undefined): string {
  const plan = PLAN.replace('agent: builtin', `agent: ${agent}${model ? `\nmodel: ${model}` : ''}`);
  return agent === 'opencode' ? plan.replace('Bench write', 'Bench opencode') : plan;
}

export type BenchFiles = { dir: string; plan: string; script: string; batch: string; jobs: Job[] };

/** Writes the plan, the script (each answer after `delayMs`) and a batch of `count` listed jobs into `dir`. */
export async function writeBenchFiles(dir: string, count: number, delayMs = 0): Promise<BenchFiles> {
  mkdirSync(dir, { recursive: true });
  const plan = join(dir, 'plan.yaml');
  const scriptFile = join(dir, 'script.yaml');
  const batch = join(dir, 'batch.yaml');
  writeFileSync(plan, PLAN);
  writeFileSync(scriptFile, script(delayMs));
  const ids = Array.from({ length: count }, (_, i) => `job-${String(i + 1).padStart(2, '0')}`);
  writeFileSync(
    batch,
    `name: bench\ndefaults: { plan: plan.yaml }\njobs:\n${ids.map((id) => `  - { id: ${id} }\n`).join('')}`,
  );
  const loaded = await loadBatch(batch);
  if (!loaded.ok) throw new Error(batchProblemsText(loaded.problems, batch));
  return { dir, plan, script: scriptFile, batch, jobs: loaded.value.jobs };
}

export type Exit = { wallMs: number; startEpochMs: number; endEpochMs: number };

/**
 * Runs `node CLI_MAIN ARGS` (what bin/ribosome execs, and what the batch spawns for a job) to its
 * end; rejects unless it exits 0. With `cpu`, under `/usr/bin/time` (when there is one), for the CPU
 * it and its reaped descendants used.
 */
export function runRibosome(
  args: readonly string[],
  options: { watch?: { everyMs: number; scope: Scope }; cpu?: boolean } = {},
): Promise<Exit & { memory?: TreeMemory; cpuMs?: number }> {
  const node = [process.execPath, '--disable-warning=ExperimentalWarning', CLI_MAIN, ...args];
  const timed = options.cpu === true && existsSync('/usr/bin/time');
  const [command, ...rest] = timed ? ['/usr/bin/time', '-f', 'cpu %U %S', ...node] : node;
  return new Promise((resolve, reject) => {
    const startEpochMs = Date.now();
    const start = performance.now();
    const child = spawn(command!, rest, { stdio: ['ignore', 'ignore', 'pipe'] });
    // Under /usr/bin/time, the job is what it started.
    const scope = timed && options.watch?.scope === 'tree' ? 'descendants' : options.watch?.scope;
    const watcher =
      options.watch && scope && child.pid ? watchTree(child.pid, options.watch.everyMs, scope) : undefined;
    let err = '';
    child.stderr.on('data', (d: Buffer) => {
      err += d.toString();
    });
    child.once('error', reject);
    child.once('exit', (code) => {
      const wallMs = performance.now() - start;
      const endEpochMs = Date.now();
      const memory = watcher?.stop();
      if (code !== 0) {
        reject(new Error(`ribosome ${args.slice(0, 2).join(' ')} exited ${code}: ${err.slice(-2000)}`));
        return;
      }
      const cpu = /^cpu ([\d.]+) ([\d.]+)$/m.exec(err);
      resolve({
        wallMs,
        startEpochMs,
        endEpochMs,
        ...(memory ? { memory } : {}),
        ...(cpu ? { cpuMs: (Number(cpu[1]) + Number(cpu[2])) * 1000 } : {}),
      });
    });
  });
}

/**
 * A run's journal from its first event to its last (epoch ms): what the run did once started, the
 * same whoever started it. Its start before the first event (Node, the CLI's modules, the
 * execution's files) and its end after the last (the server closing) are what its starter sees.
 */
function journalSpan(executionDir: string): { firstMs: number; lastMs: number } {
  const db = openExecutionDb(executionDir);
  try {
    const row = db.prepare('SELECT min(timestamp) AS first, max(timestamp) AS last FROM events').get();
    return { firstMs: Date.parse(String(row?.first)), lastMs: Date.parse(String(row?.last)) };
  } finally {
    db.close();
  }
}

/** A job's run as its starter saw it: spawn to exit (epoch ms), and its journal's span. */
export type JobSpan = {
  startMs: number;
  endMs: number;
  durationMs: number;
  firstEventMs: number;
  lastEventMs: number;
};

/** Each job's `ribosome run`, one after another, into `dir/<id>`: the loop's wall and each run's. */
export async function byHand(files: BenchFiles, dir: string) {
  const start = performance.now();
  const runs: (JobSpan & { cpuMs?: number })[] = [];
  for (const job of files.jobs) {
    const execution = join(dir, job.id);
    const args = jobRunArgs(job, execution, { scriptedProvider: files.script });
    const { wallMs, cpuMs, startEpochMs, endEpochMs } = await runRibosome(args, { cpu: true });
    const span = journalSpan(execution);
    runs.push({
      startMs: startEpochMs,
      endMs: endEpochMs,
      durationMs: wallMs,
      firstEventMs: span.firstMs,
      lastEventMs: span.lastMs,
      ...(cpuMs === undefined ? {} : { cpuMs }),
    });
  }
  return { wallMs: performance.now() - start, runs };
}

/**
 * `ribosome batch FILE --parallel N` into `dir`, its own process watched (RSS, CPU); what its
 * summary.json says of each job's run.
 */
export async function viaBatch(files: BenchFiles, dir: string, parallel: number) {
  const args = ['batch', files.batch, '--dir', dir, '--scripted-provider', files.script, '--headless'];
  const exit = await runRibosome([...args, '--parallel', String(parallel)], {
    watch: { everyMs: 200, scope: 'root' },
  });
  const summary = BatchSummary.parse(JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8')));
  const bad = summary.jobs.filter((j) => j.state !== 'passed');
  if (bad.length > 0)
    throw new Error(`batch: ${bad.map((j) => `${j.id} ${j.state} ${j.reason}`).join('; ')}`);
  const jobs: JobSpan[] = summary.jobs
    .map((j) => {
      const span = journalSpan(join(dir, j.execution));
      return {
        startMs: Date.parse(j.startedAt ?? ''),
        endMs: Date.parse(j.endedAt ?? ''),
        durationMs: j.durationMs ?? 0,
        firstEventMs: span.firstMs,
        lastEventMs: span.lastMs,
      };
    })
    .sort((a, b) => a.startMs - b.startMs);
  return { ...exit, jobs };
}
