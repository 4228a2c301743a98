import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../../src/execution/journal/database.ts';
import { canTransition, NEXT_STATUSES } from '../../../src/execution/state/codon-status.ts';
import { reduceAll, summary, TransitionError } from '../../../src/execution/state/reducer.ts';
import {
  MemoryTransitionLog,
  SqliteTransitionLog,
  StateStore,
} from '../../../src/execution/state/state-store.ts';
import type { Transition } from '../../../src/execution/state/transitions.ts';
import { tempDir } from '../../helpers/server-process.ts';

const at = '2026-01-01T00:00:00.000Z';
const run = (runId: string, nextCodonIndex = 0): Transition => ({
  type: 'RunStarted',
  data: { runId, startedAt: at, reason: 'start', nextCodonIndex },
});
const started = (runId: string, codonId: string, codonIndex = 0): Transition => ({
  type: 'CodonStarted',
  data: { runId, codonId, codonName: codonId, codonIndex, sessionId: `s-${codonId}`, startTime: at },
});
const moved = (runId: string, codonId: string, from: string, to: string): Transition =>
  ({ type: 'CodonTransitioned', data: { runId, codonId, from, to, at } }) as Transition;

describe('codon state machine', () => {
  it('allows only the written-down transitions', () => {
    expect(canTransition('pending', 'preparing')).toBe(true);
    expect(canTransition('preparing', 'running')).toBe(true);
    expect(canTransition('running', 'completed')).toBe(true);
    expect(canTransition('completed', 'running')).toBe(false);
    expect(canTransition('pending', 'completed')).toBe(false);
    for (const end of ['completed', 'failed', 'skipped', 'stopped'] as const) {
      expect(NEXT_STATUSES[end]).toEqual(['preparing']);
    }
  });
});

describe('reducer', () => {
  it('folds a run with two codons, costs and an end', () => {
    const s = reduceAll([
      run('r1'),
      started('r1', 'a'),
      moved('r1', 'a', 'preparing', 'running'),
      { type: 'CostsIncremented', data: { runId: 'r1', codonId: 'a', amount: 0.5, source: 'agent' } },
      { type: 'CodonFinalCostSet', data: { runId: 'r1', codonId: 'a', cost: 0.75 } },
      moved('r1', 'a', 'running', 'completed'),
      started('r1', 'b', 1),
      moved('r1', 'b', 'preparing', 'running'),
      { type: 'CostsIncremented', data: { runId: 'r1', codonId: 'b', amount: 0.25, source: 'sentinel' } },
      moved('r1', 'b', 'running', 'failed'),
      { type: 'RunCompleted', data: { runId: 'r1', endedAt: at } },
    ]);
    const r1 = s.runs.r1!;
    expect(r1.status).toBe('completed');
    expect(r1.codons.a).toMatchObject({ status: 'completed', cost: 0.75, attempt: 1 });
    expect(r1.codons.b).toMatchObject({ status: 'failed', cost: 0.25 });
    // The ended run is still the one the execution is at: its cost is the current run's (trial 30: a
    // server that found the plan done began no run, and clients showed $0).
    expect(summary(s)).toEqual({ currentRunId: null, runCount: 1, totalCost: 1, currentRunCost: 1 });
  });

  it.each(['constructor', 'toString', 'hasOwnProperty', 'valueOf'])(
    'a codon or run id named like an Object.prototype key (%s) is an ordinary id',
    (id) => {
      const s = reduceAll([
        run(id),
        started(id, id),
        moved(id, id, 'preparing', 'running'),
        moved(id, id, 'running', 'completed'),
        { type: 'RunCompleted', data: { runId: id, endedAt: at } },
      ]);
      expect(s.runs[id]).toMatchObject({ status: 'completed', order: [id] });
      expect(s.runs[id]?.codons[id]).toMatchObject({ status: 'completed', attempt: 1 });
      // A run that never started is unknown, not found on the prototype.
      expect(() =>
        reduceAll([run('r1'), { type: 'RunCompleted', data: { runId: id, endedAt: at } }]),
      ).toThrow(TransitionError);
      expect(() => reduceAll([run('r1'), moved('r1', id, 'preparing', 'running')])).toThrow(TransitionError);
    },
  );

  it('marks the running codon failed when a crash is detected', () => {
    const s = reduceAll([
      run('r1'),
      started('r1', 'a'),
      moved('r1', 'a', 'preparing', 'running'),
      { type: 'RunCrashed', data: { runId: 'r1', detectedAt: at, codonId: 'a' } },
      run('r2', 0),
    ]);
    expect(s.runs.r1!.status).toBe('crashed');
    expect(s.runs.r1!.codons.a!.status).toBe('failed');
    expect(s.runs.r1!.codons.a!.failureReason?.type).toBe('unknown');
    expect(s.currentRunId).toBe('r2');
  });

  it.each([
    ['a codon that never started', [run('r1'), moved('r1', 'x', 'preparing', 'running')]],
    ['a wrong from-status', [run('r1'), started('r1', 'a'), moved('r1', 'a', 'running', 'completed')]],
    [
      'a skip from pending',
      [
        run('r1'),
        started('r1', 'a'),
        moved('r1', 'a', 'preparing', 'running'),
        moved('r1', 'a', 'running', 'completed'),
        moved('r1', 'a', 'completed', 'skipped'),
      ],
    ],
    ['a start while it runs', [run('r1'), started('r1', 'a'), started('r1', 'a')]],
    ['an unknown run', [started('nope', 'a')]],
    [
      'ending a run twice',
      [
        run('r1'),
        { type: 'RunCompleted', data: { runId: 'r1', endedAt: at } },
        { type: 'RunFailed', data: { runId: 'r1', endedAt: at, reason: 'x' } },
      ],
    ],
  ] as Array<[string, Transition[]]>)('refuses %s', (_name, transitions) => {
    expect(() => reduceAll(transitions)).toThrow(TransitionError);
  });

  it("keeps the agent's and the sentinels' costs apart, the agent's own total replacing the estimate", () => {
    const s = reduceAll([
      run('r1'),
      started('r1', 'a'),
      { type: 'CostsIncremented', data: { runId: 'r1', codonId: 'a', amount: 0.4, source: 'agent' } },
      { type: 'CostsIncremented', data: { runId: 'r1', codonId: 'a', amount: 0.1, source: 'sentinel' } },
      { type: 'CostsUpdated', data: { runId: 'r1', codonId: 'a', cost: 0.5 } },
      { type: 'CodonFinalCostSet', data: { runId: 'r1', codonId: 'a', cost: 0.6 } },
    ]);
    expect(s.runs.r1!.codons.a).toMatchObject({ agentCost: 0.5, sentinelCost: 0.1 });
    expect(s.runs.r1!.codons.a!.cost).toBeCloseTo(0.6, 10);
    expect(s.totalCost).toBeCloseTo(0.6, 10);
    expect(s.runs.r1!.cost).toBeCloseTo(0.6, 10);
  });

  it("marks a codon's, its run's and the total cost estimated once an agent that reports no cost spends", () => {
    const priced = (codonId: string, codonIndex: number): Transition => {
      const t = started('r1', codonId, codonIndex);
      return { ...t, data: { ...t.data, costEstimated: true } } as Transition;
    };
    const before = reduceAll([
      run('r1'),
      started('r1', 'exact'),
      { type: 'CostsIncremented', data: { runId: 'r1', codonId: 'exact', amount: 0.2, source: 'agent' } },
      priced('cx', 1),
      // A sentinel's cost alone is no estimate.
      { type: 'CostsIncremented', data: { runId: 'r1', codonId: 'cx', amount: 0.1, source: 'sentinel' } },
    ]);
    expect(before.runs.r1!.codons.cx!.costEstimated).toBeUndefined();
    expect(before.runs.r1!.costEstimated).toBeUndefined();
    expect(summary(before)).not.toHaveProperty('totalCostEstimated');
    const s = reduceAll(
      [
        { type: 'CostsIncremented', data: { runId: 'r1', codonId: 'cx', amount: 0.3, source: 'agent' } },
        { type: 'CodonFinalCostSet', data: { runId: 'r1', codonId: 'cx', cost: 0.5 } },
      ],
      before,
    );
    expect(s.runs.r1!.codons.exact!.costEstimated).toBeUndefined();
    expect(s.runs.r1!.codons.cx).toMatchObject({ costEstimated: true, agentCost: 0.4 });
    expect(s.runs.r1!.costEstimated).toBe(true);
    expect(summary(s)).toMatchObject({ totalCostEstimated: true, currentRunCostEstimated: true });
    // A new attempt starts without its mark; the run's stays (it spent the estimate).
    const again = reduceAll([priced('cx', 1)], reduceAll([moved('r1', 'cx', 'preparing', 'failed')], s));
    expect(again.runs.r1!.codons.cx!.costEstimated).toBeUndefined();
    expect(again.runs.r1!.costEstimated).toBe(true);
  });

  it('counts attempts when a codon is redone', () => {
    const s = reduceAll([
      run('r1'),
      started('r1', 'a'),
      moved('r1', 'a', 'preparing', 'running'),
      moved('r1', 'a', 'running', 'failed'),
      started('r1', 'a'),
    ]);
    expect(s.runs.r1!.codons.a).toMatchObject({ status: 'preparing', attempt: 2 });
  });
});

describe('StateStore', () => {
  it('persists in SQLite and replays to the same state; refused transitions write nothing', () => {
    const dir = tempDir();
    try {
      const db = openDatabase(join(dir.path, 's.db'));
      const store = new StateStore(new SqliteTransitionLog(db));
      store.apply('RunStarted', { runId: 'r1', startedAt: at, reason: 'start', nextCodonIndex: 0 });
      store.apply('CodonStarted', {
        runId: 'r1',
        codonId: 'a',
        codonName: 'A',
        codonIndex: 0,
        sessionId: 's',
        startTime: at,
      });
      expect(() =>
        store.apply('CodonTransitioned', { runId: 'r1', codonId: 'a', from: 'running', to: 'completed', at }),
      ).toThrow();
      const replayed = new StateStore(new SqliteTransitionLog(db));
      expect(replayed.state).toEqual(store.state);
      expect(new SqliteTransitionLog(db).load()).toHaveLength(2);
      db.close();
    } finally {
      dir.remove();
    }
  });

  it('applies several transitions as one step: all persisted together, or none when one is refused', () => {
    const dir = tempDir();
    try {
      const db = openDatabase(join(dir.path, 's.db'));
      const store = new StateStore(new SqliteTransitionLog(db));
      store.apply('RunStarted', { runId: 'r1', startedAt: at, reason: 'start' });
      // The second is refused (r1 already ended by the first): neither is kept.
      expect(() =>
        store.applyAll([
          { type: 'RunCompleted', data: { runId: 'r1', endedAt: at } },
          { type: 'RunCompleted', data: { runId: 'r1', endedAt: at } },
        ]),
      ).toThrow();
      expect(store.state.runs.r1?.status).toBe('running');
      const applied = store.applyAll([
        { type: 'RunCompleted', data: { runId: 'r1', endedAt: at } },
        { type: 'RunStarted', data: { runId: 'r2', startedAt: at, reason: 'rollback', fromRunId: 'r1' } },
      ]);
      expect(applied.map((a) => a.state.currentRunId)).toEqual([null, 'r2']);
      const replayed = new StateStore(new SqliteTransitionLog(db));
      expect(replayed.state).toEqual(store.state);
      expect(new SqliteTransitionLog(db).load().map((t) => t.type)).toEqual([
        'RunStarted',
        'RunCompleted',
        'RunStarted',
      ]);
      db.close();
    } finally {
      dir.remove();
    }
  });

  it('validates transition data', () => {
    const store = new StateStore(new MemoryTransitionLog());
    // @ts-expect-error a wrong payload is refused at run time too
    expect(() => store.apply('RunStarted', { runId: '' })).toThrow();
    expect(store.state.runOrder).toEqual([]);
  });
});
