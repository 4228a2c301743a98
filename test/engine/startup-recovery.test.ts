import { describe, expect, it } from 'vitest';
import { foundWarning, incompleteCodon, resumedInfo, runStarted } from '../../src/engine/startup-recovery.ts';
import { reduceAll, runOf } from '../../src/execution/state/reducer.ts';
import type { Transition } from '../../src/execution/state/transitions.ts';
import type { RuntimeCodon } from '../../src/plan/index.ts';

const at = '2026-01-01T00:00:00.000Z';
const codons = [
  { id: 'one', name: 'Codon one' },
  { id: 'two', name: 'Codon two' },
] as RuntimeCodon[];

/** r1 crashed while `one` ran; r2 is the recovery this server began at one's start. */
const crashedThenRecovery: Transition[] = [
  { type: 'RunStarted', data: { runId: 'r1', startedAt: at, reason: 'start' } },
  { type: 'RunCrashed', data: { runId: 'r1', detectedAt: at, codonId: 'one' } },
  {
    type: 'RunStarted',
    data: { runId: 'r2', startedAt: at, reason: 'recovery', fromRunId: 'r1', startOf: 'one' },
  },
];

describe("a server's start: what it says of the run before it", () => {
  it.each([
    { told: undefined, found: undefined, rollbackNote: undefined, warning: undefined },
    // The crash warning carried it already.
    { told: 'one', found: 'git holds a checkpoint', rollbackNote: undefined, warning: undefined },
    {
      told: undefined,
      found: 'git holds a checkpoint',
      rollbackNote: undefined,
      warning: { code: 'CHECKPOINT_WARNING', message: 'git holds a checkpoint' },
    },
    {
      told: undefined,
      found: 'a rollback to two was under way',
      rollbackNote: 'a rollback to two was under way',
      warning: {
        code: 'RUN_CRASHED',
        message: 'the server stopped during a rollback: a rollback to two was under way',
      },
    },
  ])('told $told, found $found: $warning.code', ({ told, found, rollbackNote, warning }) => {
    expect(foundWarning(told, found, rollbackNote)).toEqual(warning);
  });

  it('tells each new client of the codon a crash interrupted, until this server runs one', () => {
    expect(incompleteCodon(reduceAll(crashedThenRecovery), codons)).toEqual({
      codonId: 'one',
      codonName: 'Codon one',
      message: 'this codon was interrupted when the server stopped; codon.redo (or codon.next) runs it again',
    });
    const plainStart: Transition = {
      type: 'RunStarted',
      data: { runId: 'r1', startedAt: at, reason: 'start' },
    };
    expect(incompleteCodon(reduceAll([plainStart]), codons)).toBeUndefined();
  });

  it("begins a recovery run after a crash, at the start of the codon the crash's recovery began at", () => {
    const state = reduceAll(crashedThenRecovery);
    const started = runStarted('r3', runOf(state, 'r2'), state);
    expect(started).toMatchObject({ runId: 'r3', reason: 'start', fromRunId: 'r2', startOf: 'one' });
    expect(runStarted('r2', runOf(state, 'r1'), state)).toMatchObject({
      reason: 'recovery',
      fromRunId: 'r1',
    });
    expect(runStarted('r1', undefined, reduceAll([]))).not.toHaveProperty('fromRunId');
  });

  it('says in server.ready what it resumed: none on a first start', () => {
    const state = reduceAll(crashedThenRecovery);
    expect(resumedInfo(codons, state, undefined, false)).toBeUndefined();
    expect(resumedInfo(codons, state, runOf(state, 'r1'), true)).toEqual({
      runCount: 2,
      done: 0,
      total: 2,
      nextCodonId: 'one',
      previousRunStatus: 'crashed',
      recovered: true,
    });
  });
});
