/**
 * The engine, in three parts (ENGINE_PARTS=end,fingerprint,long-loop picks some; all by default):
 *
 * - end: engine overhead per codon (issue: execution engine): from codon.start to the agent's first
 *   request to the provider, and from the agent's exit to codon.completed at a client, medians over
 *   20 codons against the scripted provider; beside the bare time to spawn the same agent process
 *   and read its output, measured in the same run (issue 16 target: added at the end <= 35 ms).
 * - fingerprint: the data-directory fingerprint of an empty and a 20 000-entry data directory, beside
 *   the walk it replaced (bench/engine-fingerprint.ts).
 * - long-loop: 300 iterations of a trivial codon through the real server; the gap between codon
 *   starts near the end over the gap near the start (target <= 1.3) (bench/engine-long-loop.ts).
 *   ENGINE_LOOP_ITERATIONS scales it down for a quick run; LOOP_AGENT=builtin uses Ribosome's agent.
 *
 *   npm run bench -- engine
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { AgentAdapter, AgentStart } from '../src/agents/agent-adapter.ts';
import { BuiltinAdapter } from '../src/agents/builtin/builtin-adapter.ts';
import { providerEnv } from '../src/agents/provider-env.ts';
import { RibosomeClient } from '../src/core/client/index.ts';
import { createOrchestrator } from '../src/engine/create-orchestrator.ts';
import { startRuntime } from '../src/host/server/runtime.ts';
import { startMockProvider } from '../src/llm/mock-provider/server.ts';
import { resolveServerSettings } from '../src/plan/config/server-config.ts';
import { loadPlan } from '../src/plan/index.ts';
import { runFingerprint } from './engine-fingerprint.ts';
import { runLongLoop } from './engine-long-loop.ts';
import { isMain, median, round } from './stats.ts';

const CODONS = 20;
const BIN = resolve(import.meta.dirname, '../bin/ribosome');

async function runEnd() {
  const dir = mkdtempSync(join(tmpdir(), 'ribosome-bench-engine-'));
  const requests: number[] = [];
  const provider = await startMockProvider({
    script: { turns: [], whenExhausted: { content: [{ text: 'Done.' }] } },
    onRequest: () => requests.push(performance.now()),
  });
  try {
    // Bare: spawn the same agent, read its output to the end.
    const bare = { start: [] as number[], end: [] as number[] };
    const root = join(dir, 'bare-root');
    mkdirSync(root, { recursive: true });
    const bareOnce = async () => {
      const before = requests.length;
      const t0 = performance.now();
      const child = spawn(BIN, ['agent', '--cwd', root, '--session-dir', join(dir, 'bare-sessions')], {
        env: providerEnv({ providerBaseUrl: provider.url }),
        stdio: ['pipe', 'pipe', 'inherit'],
      });
      child.stdin.end('Say done.');
      child.stdout.resume();
      let exitedAt = 0;
      child.once('exit', () => {
        exitedAt = performance.now();
      });
      await new Promise((r) => child.once('close', r));
      bare.start.push((requests[before] ?? Number.NaN) - t0);
      bare.end.push(performance.now() - exitedAt);
    };

    // --- Ribosome: the same agent through the engine, driven over the protocol. --------------------
    const planFile = join(dir, 'plan.yaml');
    writeFileSync(
      planFile,
      `name: bench\nagent: builtin\ncodons:\n${Array.from({ length: CODONS }, (_, i) => `  - id: c${i}\n    prompt: Say done.\n`).join('')}`,
    );
    const loaded = await loadPlan(planFile);
    if (!loaded.ok) throw new Error('bench plan invalid');
    const exits: number[] = [];
    const timedAdapter: AgentAdapter = {
      kind: 'builtin',
      start(options: AgentStart) {
        const agent = new BuiltinAdapter().start(options);
        void agent.exited.then(() => exits.push(performance.now()));
        return agent;
      },
    };
    const settings = resolveServerSettings({ autostart: false });
    if (!settings.ok) throw new Error(settings.message);
    const runtime = await startRuntime({
      executionDir: join(dir, 'exec'),
      dataDir: join(dir, 'exec/data'),
      settings: settings.value,
      createEngine: (deps) =>
        createOrchestrator(deps, {
          plan: loaded.plan,
          autostart: false,
          provider: () => ({ baseUrl: provider.url }),
          adapters: { builtin: timedAdapter, 'claude-code': timedAdapter },
          stopGraceMs: 1_000,
        }),
    });
    const client = await RibosomeClient.connect(runtime.url, { mode: 'readandwrite' });
    const ribo = { start: [] as number[], end: [] as number[] };
    const riboOnce = async () => {
      const before = requests.length;
      const done = client.next('codon.completed', () => true, 30_000);
      const t0 = performance.now();
      client.send('codon.next');
      await done;
      const completedAt = performance.now();
      ribo.start.push((requests[before] ?? Number.NaN) - t0);
      ribo.end.push(completedAt - (exits.at(-1) ?? Number.NaN));
    };
    // Interleaved, so both see the same machine load.
    for (let i = 0; i < CODONS; i++) {
      await bareOnce();
      await riboOnce();
    }
    await client.close();
    await runtime.stop('bench done');

    const result = {
      codons: CODONS,
      bareStartMs: round(median(bare.start)),
      ribosomeStartMs: round(median(ribo.start)),
      addedAtStartMs: round(median(ribo.start) - median(bare.start)),
      bareEndMs: round(median(bare.end)),
      ribosomeEndMs: round(median(ribo.end)),
      addedAtEndMs: round(median(ribo.end) - median(bare.end)),
    };
    return { ...result, target: { maxAddedAtEndMs: 35, met: result.addedAtEndMs <= 35 } };
  } finally {
    await provider.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

const PARTS = ['end', 'fingerprint', 'long-loop'] as const;

export async function run() {
  const wanted = (process.env.ENGINE_PARTS ?? PARTS.join(',')).split(',').map((p) => p.trim());
  for (const part of wanted)
    if (!(PARTS as readonly string[]).includes(part))
      throw new Error(`unknown engine part "${part}"; choose from ${PARTS.join(', ')}`);
  const results: Record<string, unknown> = {};
  if (wanted.includes('end')) {
    console.log('end: agent exit to codon.completed, 20 codons');
    results.end = await runEnd();
    console.table([results.end]);
  }
  if (wanted.includes('fingerprint')) {
    console.log('fingerprint: data directory, empty and 20 000 entries');
    results.fingerprint = await runFingerprint();
    console.table([results.fingerprint]);
  }
  if (wanted.includes('long-loop')) {
    const iterations = Number(process.env.ENGINE_LOOP_ITERATIONS ?? 300);
    const agent = process.env.LOOP_AGENT === 'builtin' ? 'builtin' : 'fake';
    console.log(`long-loop: ${iterations} iterations of one codon (${agent} agent)`);
    const loop = await runLongLoop({ iterations, agent, log: console.log });
    results.longLoop = { ...loop, target: { maxGapRatio: 1.3, met: loop.gapRatio <= 1.3 } };
    console.table(
      Object.keys(loop.gapMs).map((i) => ({
        iteration: Number(i),
        gapMs: loop.gapMs[i],
        serverCpuMsPerCodon: loop.cpuMsPerCodon[i],
        serverRssMb: loop.rssMb[i],
      })),
    );
    console.log(
      `gap ratio last/first ${loop.gapRatio}, server CPU ratio ${loop.cpuRatio}; last snapshot ${loop.lastSnapshotBytes} bytes; ${loop.totalSeconds} s`,
    );
  }
  mkdirSync(join(import.meta.dirname, 'results'), { recursive: true });
  writeFileSync(join(import.meta.dirname, 'results/engine.json'), JSON.stringify(results, null, 2));
  return results;
}

if (isMain(import.meta.url)) await run();
