import pino from 'pino';
import { describe, expect, it } from 'vitest';
import type { AgentAdapter, AgentAdapters, ModelSpend } from '../../src/agents/agent-adapter.ts';
import { notStarted } from '../../src/agents/spawn-agent.ts';
import type { ServerEvent } from '../../src/core/protocol/index.ts';
import { Recorder } from '../../src/engine/recorder.ts';
import { markCrashed } from '../../src/engine/recovery.ts';
import { priceSpend, unreportedSpend } from '../../src/engine/unreported-spend.ts';
import { EventBus } from '../../src/execution/journal/event-bus.ts';
import { MemoryJournal } from '../../src/execution/journal/memory-journal.ts';
import { codonOf, runOf } from '../../src/execution/state/reducer.ts';
import { MemoryTransitionLog, StateStore } from '../../src/execution/state/state-store.ts';

/**
 * A server killed while a Codex or Gemini CLI codon ran (trial 18 M3): these CLIs report tokens only at
 * a turn's end, so the journal holds none of the turn's spend; the restarted server reads it from the
 * agent's session record (AgentAdapter.spentIn) and counts what the journal lacks.
 */

/** A million input tokens of gpt-6.2-sol: $2 at its list price (src/llm/pricing.ts). */
const MILLION_IN: ModelSpend = {
  model: 'gpt-6.2-sol',
  usage: { input_tokens: 1_000_000, output_tokens: 0 },
};

const adapters = (sessions: Record<string, ModelSpend[]>): AgentAdapters => ({
  codex: {
    kind: 'codex',
    reportsCost: false,
    start: () => notStarted('not in this test'),
    spentIn: (id, stateDir) => {
      expect(stateDir).toBe('/state');
      return sessions[id];
    },
  } satisfies AgentAdapter,
});

const entry = { pid: 42, codonId: 'a', startedAt: new Date(0).toISOString(), kind: 'agent' as const };

describe('unreportedSpend', () => {
  it("is the session's spend, priced, beyond what it had when the run began and what the journal counted", () => {
    const perMillion = priceSpend([MILLION_IN]);
    expect(perMillion).toBeCloseTo(2, 9);
    const registry = adapters({ s1: [MILLION_IN, MILLION_IN, MILLION_IN] });
    const run = { ...entry, agent: 'codex', agentSessionId: 's1', spentBefore: perMillion, costBefore: 0 };
    // The session spent three millions; one was its parent's (a continued session); nothing was journaled.
    expect(unreportedSpend(run, 0, registry, '/state')).toBeCloseTo(2 * perMillion, 9);
    // One turn's million was journaled (a message's follow-up turn was running).
    expect(unreportedSpend(run, perMillion, registry, '/state')).toBeCloseTo(perMillion, 9);
    // A feedback round: the codon's agent had spent $5 before it; the round's first million is journaled.
    const round = { ...run, costBefore: 5 };
    expect(unreportedSpend(round, 5 + perMillion, registry, '/state')).toBeCloseTo(perMillion, 9);
    // All counted already.
    expect(unreportedSpend(run, 2 * perMillion, registry, '/state')).toBe(0);
  });

  it('is zero without a session, an agent that can tell, or a record', () => {
    const registry = adapters({});
    expect(unreportedSpend(entry, 0, registry, '/state')).toBe(0);
    expect(unreportedSpend({ ...entry, agent: 'codex', agentSessionId: 'gone' }, 0, registry, '/state')).toBe(
      0,
    );
    expect(unreportedSpend({ ...entry, agent: 'builtin', agentSessionId: 's1' }, 0, registry, '/state')).toBe(
      0,
    );
  });
});

describe('markCrashed with spend the journal lacks', () => {
  it("adds it to the interrupted codon's cost, in the run's totals and its codon.completed", async () => {
    const at = new Date(0).toISOString();
    const bus = new EventBus({ journal: new MemoryJournal(), runId: 'run-1' });
    const store = new StateStore(new MemoryTransitionLog());
    const recorder = new Recorder({ bus, state: store, logger: pino({ level: 'silent' }) });
    await recorder.apply('RunStarted', { runId: 'run-1', startedAt: at, reason: 'start' });
    const codon = {
      runId: 'run-1',
      codonId: 'a',
      codonName: 'A',
      codonIndex: 0,
      sessionId: 's',
      startTime: at,
    };
    await recorder.apply('CodonStarted', codon);
    await recorder.apply('CodonTransitioned', {
      runId: 'run-1',
      codonId: 'a',
      from: 'preparing',
      to: 'running',
      at,
    });
    await recorder.apply('CostsIncremented', { runId: 'run-1', codonId: 'a', amount: 0.5, source: 'agent' });
    const seen: ServerEvent[] = [];
    bus.subscribe((e) => seen.push(e));
    const asked: Array<[string, number]> = [];
    await markCrashed(
      recorder,
      store.state,
      'run-1',
      [{ codonId: 'a', kind: 'agent' }],
      undefined,
      (codonId, agentCost) => {
        asked.push([codonId, agentCost]);
        return 2;
      },
    );
    expect(asked).toEqual([['a', 0.5]]);
    const run = runOf(store.state, 'run-1');
    expect(run?.status).toBe('crashed');
    expect(run?.cost).toBeCloseTo(2.5, 9);
    expect(codonOf(run, 'a')?.cost).toBeCloseTo(2.5, 9);
    const completed = seen.find((e) => e.type === 'codon.completed');
    expect(completed?.data).toMatchObject({ codonId: 'a', success: false, cost: 2.5 });
    const warning = seen.find((e) => e.type === 'error');
    expect(warning?.type === 'error' && warning.data.message).toContain(
      '$2.0000 its agent spent after its last report was read from its session record',
    );
  });
});
