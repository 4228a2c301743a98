import { describe, expect, it } from 'vitest';
import {
  nextPhase,
  type OrchestratorPhase,
  type PhaseChange,
  rollingBack,
  stopping,
} from '../../src/engine/orchestrator-phase.ts';

const open: OrchestratorPhase = { kind: 'open' };
const begins = (by: 'client' | 'sentinel' | 'recovery'): PhaseChange => ({ kind: 'rollback-begins', by });
const ends: PhaseChange = { kind: 'rollback-ends' };
const stop = (reason: string): PhaseChange => ({ kind: 'stop', reason });

function phaseAfter(changes: readonly PhaseChange[]): OrchestratorPhase {
  return changes.reduce(nextPhase, open);
}

describe('the orchestrator phase: every change in one place', () => {
  it.each<{ what: string; changes: PhaseChange[]; state: OrchestratorPhase }>([
    { what: 'a new engine', changes: [], state: open },
    {
      what: "a client's rollback",
      changes: [begins('client')],
      state: { kind: 'rolling-back', by: 'client' },
    },
    { what: 'a rollback done', changes: [begins('sentinel'), ends], state: open },
    // A rollback refused after its switch failed ends once more: nothing changes.
    { what: 'a rollback ended twice', changes: [begins('client'), ends, ends], state: open },
    { what: 'a shutdown', changes: [stop('SIGTERM')], state: { kind: 'stopping', reason: 'SIGTERM' } },
    {
      what: 'an abort, then the shutdown it asked for',
      changes: [stop('onFailure then: abort'), stop('SIGTERM')],
      state: { kind: 'stopping', reason: 'onFailure then: abort' },
    },
    {
      what: 'a shutdown during a recovery',
      changes: [begins('recovery'), stop('SIGINT')],
      state: { kind: 'stopping', reason: 'SIGINT', rollingBack: 'recovery' },
    },
    {
      what: 'the rollback a shutdown waited for, done',
      changes: [begins('client'), stop('SIGINT'), ends],
      state: { kind: 'stopping', reason: 'SIGINT' },
    },
    {
      what: 'a rollback whose turn comes after the shutdown (it is refused)',
      changes: [stop('SIGINT'), begins('client')],
      state: { kind: 'stopping', reason: 'SIGINT', rollingBack: 'client' },
    },
  ])('$what', ({ changes, state }) => {
    expect(phaseAfter(changes)).toEqual(state);
  });

  it.each<{ state: OrchestratorPhase; rolling: boolean; stops: boolean }>([
    { state: open, rolling: false, stops: false },
    { state: { kind: 'rolling-back', by: 'client' }, rolling: true, stops: false },
    { state: { kind: 'stopping', reason: 'x' }, rolling: false, stops: true },
    { state: { kind: 'stopping', reason: 'x', rollingBack: 'recovery' }, rolling: true, stops: true },
  ])('$state: rolling back $rolling, stopping $stops', ({ state, rolling, stops }) => {
    expect(rollingBack(state)).toBe(rolling);
    expect(stopping(state)).toBe(stops);
  });

  it('a second rollback never begins while one runs: a bug, said loudly', () => {
    expect(() => phaseAfter([begins('client'), begins('sentinel')])).toThrow(/began while one runs/);
    expect(() => phaseAfter([begins('client'), stop('x'), begins('recovery')])).toThrow(
      /began while one runs/,
    );
  });
});
