/**
 * What the sandbox costs (docs/agents.md#the-sandbox): the same codons run by real `ribosome run`
 * processes with `sandbox: on` and `sandbox: off`, the two modes interleaved run by run so the machine's
 * noise falls on both alike. Times are read from the journal (codon.started to codon.completed).
 *
 * - light: a codon whose agent answers once: what the sandbox adds to a codon's start and end
 *   (goal: under 50 ms at the median).
 * - heavy: a codon whose agent makes 24 shell tool calls: the sandbox's share of its wall time
 *   (goal: under 5 %).
 *
 * Writes bench/results/sandbox.json. SANDBOX_BENCH_RUNS (default 5) runs per mode; each run is one plan of 4 light and 2 heavy codons.
 * Built-in agent on the scripted provider.
 *
 *   npm run bench -- sandbox
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { sandboxSupport } from '../src/platform/sandbox/index.ts';
import { isMain, median, round } from './stats.ts';

const BIN = resolve(import.meta.dirname, '../bin/ribosome');
const RUNS = Number(process.env.SANDBOX_BENCH_RUNS ?? 5);
const LIGHT = 4;
const HEAVY = 2;
const TOOL_CALLS = 24;

const SCRIPT = `tracks:
  - name: heavy
    match: { firstUser: BENCH-HEAVY }
    loop: true
    turns:
${Array.from(
  { length: TOOL_CALLS },
  (_, i) =>
    `      - content: [{ tool_use: { name: Bash, input: { command: "ls -la > listing-${i}.txt && wc -l listing-${i}.txt" } } }]\n`,
).join('')}      - content: [{ text: Done. }]
whenExhausted: { content: [{ text: Done. }] }
`;

function plan(mode: 'on' | 'off'): string {
  const codons = [
    ...Array.from({ length: LIGHT }, (_, i) => `  - id: light${i}\n    prompt: BENCH-LIGHT say done\n`),
    ...Array.from({ length: HEAVY }, (_, i) => `  - id: heavy${i}\n    prompt: BENCH-HEAVY list files\n`),
  ];
  return `name: sandbox-bench\nagent: builtin\nsandbox: ${mode}\ncodons:\n${codons.join('')}`;
}

/** Runs the plan once; the wall time of each codon, by id. */
async function runOnce(dir: string, mode: 'on' | 'off', n: number): Promise<Map<string, number>> {
  const planFile = join(dir, `plan-${mode}.yaml`);
  const script = join(dir, 'script.yaml');
  writeFileSync(planFile, plan(mode));
  writeFileSync(script, SCRIPT);
  const exec = join(dir, `exec-${mode}-${n}`);
  const child = spawn(
    BIN,
    ['run', planFile, '--headless', '--exit-when-done', '--execution', exec, '--scripted-provider', script],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const code = await new Promise<number | null>((r) => child.once('close', r));
  if (code !== 0) throw new Error(`ribosome run (sandbox ${mode}) exited ${code}: ${stderr.slice(-800)}`);
  const db = new DatabaseSync(join(exec, '.ribosome', 'ribosome.db'), { readOnly: true });
  try {
    const started = new Map<string, number>();
    const took = new Map<string, number>();
    for (const row of db.prepare('SELECT json FROM events ORDER BY seq').all() as Array<{ json: string }>) {
      const e = JSON.parse(row.json) as { type: string; timestamp: string; data: { codonId?: string } };
      const id = e.data.codonId;
      if (!id) continue;
      if (e.type === 'codon.started') started.set(id, Date.parse(e.timestamp));
      if (e.type === 'codon.completed')
        took.set(id, Date.parse(e.timestamp) - (started.get(id) ?? Number.NaN));
    }
    return took;
  } finally {
    db.close();
  }
}

export async function run() {
  const support = sandboxSupport();
  if (!support.ok) {
    console.log(`sandbox: skipped, the sandbox is not supported here (${support.why}; ${support.install})`);
    return { skipped: support.why };
  }
  const dir = mkdtempSync(join(tmpdir(), 'ribosome-bench-sandbox-'));
  const times = {
    on: { light: [] as number[], heavy: [] as number[] },
    off: { light: [] as number[], heavy: [] as number[] },
  };
  try {
    for (let n = 0; n < RUNS; n++) {
      // Alternate which mode goes first, so neither always runs on a warmer machine.
      const order: Array<'on' | 'off'> = n % 2 === 0 ? ['off', 'on'] : ['on', 'off'];
      for (const mode of order) {
        const took = await runOnce(dir, mode, n);
        for (const [id, ms] of took) times[mode][id.startsWith('heavy') ? 'heavy' : 'light'].push(ms);
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const light = { off: median(times.off.light), on: median(times.on.light) };
  const heavy = { off: median(times.off.heavy), on: median(times.on.heavy) };
  const added = light.on - light.off;
  const share = heavy.on / heavy.off - 1;
  const result = {
    runsPerMode: RUNS,
    lightCodonMs: { off: round(light.off, 1), on: round(light.on, 1), addedMs: round(added, 1) },
    heavyCodonMs: { off: round(heavy.off, 1), on: round(heavy.on, 1), addedPercent: round(share * 100, 1) },
    goals: {
      'added to start and end < 50 ms': added < 50 ? 'met' : 'MISSED',
      'tool-heavy wall time < +5 %': share < 0.05 ? 'met' : 'MISSED',
    },
  };
  console.log(
    `light codon (one answer), median of ${times.on.light.length}: off ${result.lightCodonMs.off} ms, on ${result.lightCodonMs.on} ms, added ${result.lightCodonMs.addedMs} ms (goal < 50: ${result.goals['added to start and end < 50 ms']})`,
  );
  console.log(
    `heavy codon (${TOOL_CALLS} shell calls), median of ${times.on.heavy.length}: off ${result.heavyCodonMs.off} ms, on ${result.heavyCodonMs.on} ms, ${result.heavyCodonMs.addedPercent} % (goal < 5 %: ${result.goals['tool-heavy wall time < +5 %']})`,
  );
  mkdirSync(join(import.meta.dirname, 'results'), { recursive: true });
  writeFileSync(join(import.meta.dirname, 'results/sandbox.json'), JSON.stringify(result, null, 2));
  return result;
}

if (isMain(import.meta.url)) await run();
