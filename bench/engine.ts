/**
 * Engine overhead per codon (issue: execution engine): from codon.start to the agent's first
 * request to the provider, and from the agent's exit to codon.completed, medians over 20 codons
 * against the scripted provider; beside the bare time to spawn the same agent process and read its
 * output, measured in the same run.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { AgentAdapter, AgentStart } from '../src/agents/agent-adapter.ts';
import { BuiltinAdapter } from '../src/agents/builtin-adapter.ts';
import { providerEnv } from '../src/agents/provider-env.ts';
import { RibosomeClient } from '../src/client/index.ts';
import { resolveServerSettings } from '../src/config/server-config.ts';
import { createOrchestrator } from '../src/engine/create-orchestrator.ts';
import { startMockProvider } from '../src/llm/mock-provider/server.ts';
import { loadPlan } from '../src/plan/index.ts';
import { startRuntime } from '../src/server/runtime.ts';
import { isMain, median, round } from './stats.ts';

const CODONS = 20;
const BIN = resolve(import.meta.dirname, '../bin/ribosome');

export async function run() {
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
    console.table([result]);
    mkdirSync(join(import.meta.dirname, 'results'), { recursive: true });
    writeFileSync(join(import.meta.dirname, 'results/engine.json'), JSON.stringify(result, null, 2));
    return result;
  } finally {
    await provider.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (isMain(import.meta.url)) await run();
