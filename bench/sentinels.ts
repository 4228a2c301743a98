/**
 * Sentinel benchmark (issue 5): what sentinels cost the agent's event path, in one run.
 *
 * 1. Throughput: events/s through the event bus with 0 and with 10 sentinels attached (each matching
 *    every event, debounce strategy), short rounds alternating so drift hits both alike; the ratio
 *    is the median of the per-round ratios. Over the in-memory
 *    journal (the bus and its listeners alone: the strict figure) and over SQLite with
 *    synchronous=full (the server's real path).
 * 2. A slow provider: every sentinel call takes SLOW_MS while the agent's events keep flowing at full
 *    rate. Publish latency (publish -> durable and delivered) with no sentinels and with 10 sentinels
 *    (immediate strategy, so a call is always in flight), SQLite journal; windows alternate and the
 *    samples of each configuration are pooled.
 *
 * `node_modules/.bin/node bench/sentinels.ts`; writes bench/results/sentinels.json.
 */

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import os, { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { createSentinelHooks } from '../src/engine/sentinels/sentinel-hooks.ts';
import { openDatabase } from '../src/execution/journal/database.ts';
import { EventBus } from '../src/execution/journal/event-bus.ts';
import type { Journal } from '../src/execution/journal/journal.ts';
import { MemoryJournal } from '../src/execution/journal/memory-journal.ts';
import { SqliteJournal } from '../src/execution/journal/sqlite-journal.ts';
import { type MockProvider, startMockProvider } from '../src/llm/mock-provider/server.ts';
import { loadPlan, type RuntimeCodon } from '../src/plan/index.ts';
import { isMain, median, percentile, round } from './stats.ts';

const SENTINELS = 10;
const SLOW_MS = 2_000;
const TARGET_RATIO = 0.9;
const BURST = 100;

type Strategy = 'debounce' | 'immediate';
type JournalKind = 'memory' | 'sqlite';

async function codonWith(dir: string, strategy: Strategy): Promise<RuntimeCodon> {
  const executionStrategy =
    strategy === 'debounce' ? '{ type: debounce, quietMs: 50 }' : '{ type: immediate }';
  const sentinels = Array.from(
    { length: SENTINELS },
    (_, i) => `      - id: s${i}
        model: claude-haiku-4-5
        userPrompt: "{{eventCount}} events, the last: {{events.last.data.content}}"
        trigger: { type: event, eventTypes: [assistant.action, tool.result, token.usage, file.updated] }
        executionStrategy: ${executionStrategy}
`,
  ).join('');
  const file = join(dir, `plan-${strategy}.yaml`);
  writeFileSync(file, `name: bench\ncodons:\n  - id: c\n    prompt: Work.\n    sentinels:\n${sentinels}`);
  const loaded = await loadPlan(file);
  if (!loaded.ok) throw new Error('bench plan invalid');
  return loaded.plan.codons[0]!;
}

function openJournal(dir: string, kind: JournalKind, name: string): Journal {
  return kind === 'memory'
    ? new MemoryJournal()
    : new SqliteJournal(openDatabase(join(dir, `${name}-${Date.now()}-${Math.random()}.db`), 'full'));
}

const action = (i: number) => ({
  codonId: 'c',
  action: 'tool_use' as const,
  content: `Bash: echo ${i}`,
  toolName: 'Bash',
  toolInput: { command: `echo ${i}` },
});

/** A bus, with SENTINELS sentinels loaded on codon c when `codon` is given. */
async function setup(
  dir: string,
  kind: JournalKind,
  provider: MockProvider,
  codon: RuntimeCodon | undefined,
) {
  const journal = openJournal(dir, kind, codon ? 'with' : 'without');
  const bus = new EventBus({ journal, runId: 'bench' });
  const hooks = createSentinelHooks({
    bus,
    logger: pino({ level: 'silent' }),
    provider: () => ({ baseUrl: provider.url }),
    outputDir: join(dir, 'sentinels'),
    emitTriggered: false,
    onCost: () => {},
    onStates: () => {},
    pendingWorkTimeoutMs: 5_000,
  });
  if (codon) await hooks.beforeAgent(codon, 'bench');
  return {
    bus,
    async close() {
      await hooks.shutdown();
      journal.close();
    },
  };
}

async function throughput(
  dir: string,
  kind: JournalKind,
  provider: MockProvider,
  codon: RuntimeCodon | undefined,
  events: number,
) {
  const { bus, close } = await setup(dir, kind, provider, codon);
  // Warm-up, then the measured run: bursts within one turn share a commit, as the engine publishes.
  for (let i = 0; i < 2_000; i += BURST) {
    await Promise.all(
      Array.from({ length: BURST }, (_, k) => bus.publish('assistant.action', action(i + k))),
    );
  }
  const start = performance.now();
  const cpu = process.cpuUsage();
  for (let i = 0; i < events; i += BURST) {
    await Promise.all(
      Array.from({ length: BURST }, (_, k) => bus.publish('assistant.action', action(i + k))),
    );
  }
  const rate = events / ((performance.now() - start) / 1000);
  const used = process.cpuUsage(cpu);
  // CPU time is what this process spent: the figure other load on a shared machine disturbs least.
  const cpuUsPerEvent = (used.user + used.system) / events;
  await close();
  return { rate, cpuUsPerEvent };
}

/** Publishes at full rate for `durationMs`; returns each event's publish latency. */
async function latencySamples(
  dir: string,
  provider: MockProvider,
  codon: RuntimeCodon | undefined,
  durationMs: number,
) {
  const { bus, close } = await setup(dir, 'sqlite', provider, codon);
  const before = provider.requests.length;
  const samples: number[] = [];
  const start = performance.now();
  let i = 0;
  while (performance.now() - start < durationMs) {
    await Promise.all(
      Array.from({ length: BURST }, () => {
        const t0 = performance.now();
        return bus.publish('assistant.action', action(i++)).then(() => samples.push(performance.now() - t0));
      }),
    );
  }
  const seconds = (performance.now() - start) / 1000;
  const calls = provider.requests.length - before;
  await close();
  return { samples, seconds, calls };
}

function summarize(runs: Array<Awaited<ReturnType<typeof latencySamples>>>) {
  const sorted = Float64Array.from(runs.flatMap((r) => r.samples)).sort();
  const seconds = runs.reduce((sum, r) => sum + r.seconds, 0);
  return {
    events: sorted.length,
    eventsPerSec: round(sorted.length / seconds, 0),
    p50Ms: round(percentile(sorted, 50), 3),
    p99Ms: round(percentile(sorted, 99), 3),
    maxMs: round(sorted[sorted.length - 1] ?? Number.NaN, 3),
    sentinelCallsStarted: runs.reduce((sum, r) => sum + r.calls, 0),
  };
}

export type SentinelBenchResult = Awaited<ReturnType<typeof run>>;

export async function run(
  options: {
    events?: number;
    rounds?: number;
    slowWindowMs?: number;
    latencyRounds?: number;
    quiet?: boolean;
  } = {},
) {
  const events = options.events ?? 20_000;
  const rounds = options.rounds ?? 11;
  const slowWindowMs = options.slowWindowMs ?? 1.5 * SLOW_MS;
  const latencyRounds = options.latencyRounds ?? 4;
  const dir = mkdtempSync(join(tmpdir(), 'ribosome-bench-sentinels-'));
  const fast = await startMockProvider({
    script: { turns: [], whenExhausted: { content: [{ text: 'ok' }] } },
  });
  const slow = await startMockProvider({
    script: { turns: [], whenExhausted: { content: [{ text: 'ok' }], delayMs: SLOW_MS } },
  });
  try {
    const debounced = await codonWith(dir, 'debounce');
    const immediate = await codonWith(dir, 'immediate');

    // Short rounds, alternating which goes first, so load from elsewhere on the machine falls on both.
    const throughputOf = async (kind: JournalKind) => {
      const without: number[] = [];
      const withSentinels: number[] = [];
      const ratios: number[] = [];
      const cpuWithout: number[] = [];
      const cpuWith: number[] = [];
      for (let r = 0; r < rounds; r++) {
        let a: Awaited<ReturnType<typeof throughput>>;
        let b: typeof a;
        if (r % 2 === 0) {
          a = await throughput(dir, kind, fast, undefined, events);
          b = await throughput(dir, kind, fast, debounced, events);
        } else {
          b = await throughput(dir, kind, fast, debounced, events);
          a = await throughput(dir, kind, fast, undefined, events);
        }
        without.push(a.rate);
        withSentinels.push(b.rate);
        ratios.push(b.rate / a.rate);
        cpuWithout.push(a.cpuUsPerEvent);
        cpuWith.push(b.cpuUsPerEvent);
      }
      const ratio = median(ratios);
      const cpu0 = median(cpuWithout);
      const cpu10 = median(cpuWith);
      return {
        withoutEventsPerSec: round(median(without), 0),
        with10EventsPerSec: round(median(withSentinels), 0),
        ratio: round(ratio, 3),
        ratioRange: [round(Math.min(...ratios), 3), round(Math.max(...ratios), 3)],
        meetsTarget: ratio >= TARGET_RATIO,
        cpuUsPerEventWithout: round(cpu0, 3),
        cpuUsPerEventWith10: round(cpu10, 3),
        /** Events per CPU-second with 10 sentinels over without. */
        cpuRatio: round(cpu0 / cpu10, 3),
      };
    };
    const memory = await throughputOf('memory');
    const sqlite = await throughputOf('sqlite');

    // Windows longer than a call, alternating, samples pooled per configuration.
    const none: Array<Awaited<ReturnType<typeof latencySamples>>> = [];
    const slowOnes: typeof none = [];
    for (let r = 0; r < latencyRounds; r++) {
      if (r % 2 === 0) none.push(await latencySamples(dir, slow, undefined, slowWindowMs));
      slowOnes.push(await latencySamples(dir, slow, immediate, slowWindowMs));
      if (r % 2 === 1) none.push(await latencySamples(dir, slow, undefined, slowWindowMs));
    }
    const noSentinels = summarize(none);
    const slowSentinels = summarize(slowOnes);

    const result = {
      date: new Date().toISOString(),
      machine: { cpus: os.cpus().length, node: process.version, platform: `${os.platform()} ${os.arch()}` },
      setup: {
        sentinels: SENTINELS,
        eventsPerRound: events,
        rounds,
        burst: BURST,
        slowCallMs: SLOW_MS,
        slowWindowMs,
        latencyRounds,
      },
      target: { throughputRatio: TARGET_RATIO },
      throughput: { memoryJournal: memory, sqliteJournal: sqlite },
      slowProvider: {
        noSentinels,
        tenSlowSentinels: slowSentinels,
        p99Ratio: round(slowSentinels.p99Ms / noSentinels.p99Ms, 3),
      },
    };
    if (!options.quiet) print(result);
    await mkdir(join(import.meta.dirname, 'results'), { recursive: true });
    await writeFile(
      join(import.meta.dirname, 'results/sentinels.json'),
      `${JSON.stringify(result, null, 2)}\n`,
    );
    return result;
  } finally {
    await fast.stop();
    await slow.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

function print(r: {
  throughput: Record<
    string,
    {
      withoutEventsPerSec: number;
      with10EventsPerSec: number;
      ratio: number;
      ratioRange: number[];
      meetsTarget: boolean;
      cpuUsPerEventWithout: number;
      cpuUsPerEventWith10: number;
      cpuRatio: number;
    }
  >;
  slowProvider: {
    noSentinels: Record<string, number>;
    tenSlowSentinels: Record<string, number>;
    p99Ratio: number;
  };
}) {
  console.log(
    `\nEvent bus throughput, 0 vs ${SENTINELS} sentinels (debounce, matching every event); target ratio >= ${TARGET_RATIO}`,
  );
  console.table(
    Object.fromEntries(
      Object.entries(r.throughput).map(([k, v]) => [
        k,
        {
          'events/s, 0': v.withoutEventsPerSec,
          [`events/s, ${SENTINELS}`]: v.with10EventsPerSec,
          'ratio (median)': v.ratio,
          'ratio min-max': v.ratioRange.join(' - '),
          ok: v.meetsTarget,
          'CPU µs/event, 0': v.cpuUsPerEventWithout,
          [`CPU µs/event, ${SENTINELS}`]: v.cpuUsPerEventWith10,
          'CPU ratio': v.cpuRatio,
        },
      ]),
    ),
  );
  console.log(`\nPublish latency while every sentinel call takes ${SLOW_MS} ms (SQLite journal, full rate)`);
  console.table({
    'no sentinels': r.slowProvider.noSentinels,
    [`${SENTINELS} slow sentinels`]: r.slowProvider.tenSlowSentinels,
  });
  console.log(`p99 ratio (with / without): ${r.slowProvider.p99Ratio}`);
}

if (isMain(import.meta.url)) await run();
