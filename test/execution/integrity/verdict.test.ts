import { describe, expect, it } from 'vitest';
import { type IntegrityFacts, judgeIntegrity } from '../../../src/execution/integrity/verdict.ts';

const healthy = (records: number, checkpoints = records > 0 ? 1 : 0) => ({
  kind: 'healthy' as const,
  records,
  checkpoints,
});
const repo = (runs: number, headResolves = true) => ({ kind: 'repository' as const, runs, headResolves });
const facts = (f: Partial<IntegrityFacts>): IntegrityFacts => ({
  internalExists: true,
  database: healthy(10),
  store: repo(1),
  ...f,
});
const problem = (f: Partial<IntegrityFacts>) => {
  const verdict = judgeIntegrity(facts(f));
  return verdict.ok ? 'ok' : verdict.problem;
};

describe('judgeIntegrity', () => {
  it('starts fresh without .ribosome/, or with nothing recorded anywhere yet', () => {
    expect(problem({ internalExists: false, database: { kind: 'absent' }, store: { kind: 'absent' } })).toBe(
      'ok',
    );
    expect(problem({ database: { kind: 'absent' }, store: { kind: 'absent' } })).toBe('ok');
    expect(problem({ database: { kind: 'empty' }, store: repo(0, false) })).toBe('ok');
  });
  it('starts over a store cut short before anything was recorded', () => {
    expect(problem({ database: healthy(0), store: { kind: 'corrupt', why: 'not a git repository' } })).toBe(
      'ok',
    );
  });
  it('goes on with a recorded history, also one killed before its first branch', () => {
    expect(problem({})).toBe('ok');
    expect(problem({ store: repo(0, false) })).toBe('ok');
  });
  it('refuses a database gone, emptied or replaced while the store holds runs', () => {
    expect(problem({ database: { kind: 'absent' } })).toContain(
      'ribosome.db is missing, yet the checkpoint store holds 1 run(s)',
    );
    expect(problem({ database: { kind: 'empty' } })).toContain('ribosome.db is empty');
    expect(problem({ database: healthy(0) })).toContain('ribosome.db holds no record');
  });
  it('refuses a corrupt database or store, and a store gone under a recorded history', () => {
    expect(problem({ database: { kind: 'corrupt', why: 'file is not a database' } })).toContain(
      'ribosome.db is corrupt (file is not a database)',
    );
    expect(problem({ store: { kind: 'corrupt', why: 'not a git repository' } })).toContain(
      'not a readable git repository',
    );
    expect(problem({ store: repo(2, false) })).toContain('HEAD names no commit');
    expect(problem({ store: { kind: 'absent' } })).toContain('checkpoints.git is missing');
    // A journal of events and no checkpoint (one written by a tool, not a run) needs no store.
    expect(problem({ database: healthy(10, 0), store: { kind: 'absent' } })).toBe('ok');
  });
});
