import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import pino from 'pino';
import { z } from 'zod';
import type { EventInput, EventType, ServerEvent } from '../../../src/core/protocol/index.ts';
import {
  createSentinelHooks,
  type SentinelHooksOptions,
  type SentinelState,
} from '../../../src/engine/sentinels/sentinel-hooks.ts';
import { EventBus } from '../../../src/execution/journal/event-bus.ts';
import { MemoryJournal } from '../../../src/execution/journal/memory-journal.ts';
import type { ScriptInput } from '../../../src/llm/mock-provider/script-schema.ts';
import { type MockProvider, startMockProvider } from '../../../src/llm/mock-provider/server.ts';
import { loadPlan, type RuntimeCodon } from '../../../src/plan/index.ts';

export type Harness = Awaited<ReturnType<typeof startHarness>>;

/** What a sentinel sends: a system prompt (maybe) and plain-text messages. */
const SentinelRequest = z.object({
  system: z.string().optional(),
  messages: z.array(z.object({ role: z.enum(['user', 'assistant']), content: z.string() })),
});

const open: Array<{ stop(): Promise<void> }> = [];

/** Stops every harness started since the last call (use in afterEach). */
export async function stopHarnesses(): Promise<void> {
  await Promise.all(open.splice(0).map((h) => h.stop()));
}

/**
 * Sentinel hooks over a real EventBus (in-memory journal) and a real scripted provider on
 * 127.0.0.1, for a plan written to a temporary directory with its extra files.
 */
export async function startHarness(options: {
  plan: string;
  script: ScriptInput;
  files?: Record<string, string>;
  hooks?: Partial<SentinelHooksOptions>;
}) {
  const dir = mkdtempSync(join(tmpdir(), 'ribosome-sentinels-'));
  for (const [path, text] of Object.entries({ 'plan.yaml': options.plan, ...options.files })) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  const loaded = await loadPlan(join(dir, 'plan.yaml'));
  if (!loaded.ok) throw new Error(JSON.stringify(loaded.problems, null, 2));
  const provider: MockProvider = await startMockProvider({ script: options.script });
  const bus = new EventBus({ journal: new MemoryJournal(), runId: 'run-1' });
  const events: ServerEvent[] = [];
  bus.subscribe((e) => events.push(e));
  const costs: Array<{ codonId: string; usd: number }> = [];
  const states: Array<{ codonId: string; states: SentinelState[] }> = [];
  const outputDir = join(dir, 'exec/.ribosome/sentinels');
  const hooks = createSentinelHooks({
    bus,
    logger: pino({ level: 'silent' }),
    provider: () => ({ baseUrl: provider.url }),
    outputDir,
    emitTriggered: true,
    onCost: (codonId, usd) => costs.push({ codonId, usd }),
    onStates: (codonId, s) => states.push({ codonId, states: s }),
    pendingWorkTimeoutMs: 10_000,
    ...options.hooks,
  });
  let stopped = false;
  const harness = {
    dir,
    outputDir,
    provider,
    bus,
    hooks,
    events,
    costs,
    states,
    codon(id: string): RuntimeCodon {
      const codon = loaded.plan.codons.find((c) => c.id === id);
      if (!codon) throw new Error(`no codon ${id}`);
      return codon;
    },
    publish<T extends EventType>(type: T, data: EventInput<T>) {
      return bus.publish(type, data);
    },
    of<T extends ServerEvent['type']>(type: T): Array<Extract<ServerEvent, { type: T }>> {
      return events.filter((e): e is Extract<ServerEvent, { type: T }> => e.type === type);
    },
    /** Bodies of the requests the provider received, optionally those of one sentinel only. */
    requests(sentinelId?: string) {
      return provider.requests
        .filter((r) => sentinelId === undefined || r.headers['x-ribosome-sentinel'] === sentinelId)
        .map((r) => SentinelRequest.parse(r.body));
    },
    /** Sentinel event types in order, with the trigger number where there is one. */
    sentinelTrail(): string[] {
      return events.flatMap((e) => {
        if (!e.type.startsWith('sentinel.')) return [];
        const d = e.data as { triggerNumber?: number; reason?: string; errorType?: string };
        const detail = d.triggerNumber ?? d.reason ?? '';
        return [`${e.type.slice('sentinel.'.length)}${detail === '' ? '' : `:${detail}`}`];
      });
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      await hooks.shutdown();
      await provider.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  open.push(harness);
  return harness;
}

type Published<T extends EventType> = { type: T; data: EventInput<T> };

/** An agent-like tool call and its result for codon `codonId`. */
export function toolEvents(
  codonId: string,
  n: number,
  tool = 'Bash',
): [Published<'assistant.action'>, Published<'tool.result'>] {
  return [
    {
      type: 'assistant.action',
      data: {
        codonId,
        action: 'tool_use',
        content: `${tool}: step ${n}`,
        toolName: tool,
        toolInput: { command: `echo ${n}` },
      },
    },
    {
      type: 'tool.result',
      data: {
        codonId,
        toolUseId: `toolu_${n}`,
        toolName: tool,
        result: `${n}`,
        truncated: false,
        originalLength: 1,
        executionTimeMs: 1,
        isError: false,
      },
    },
  ];
}
