import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { resumeNotice } from '../../../../src/clients/cli/run/announce.ts';
import { chooseExecutionDir } from '../../../../src/clients/cli/run/execution-dir.ts';
import { openDatabase } from '../../../../src/execution/journal/database.ts';
import { executionLayout } from '../../../../src/execution/layout/layout.ts';
import { SqliteTransitionLog, StateStore } from '../../../../src/execution/state/state-store.ts';
import { tempDir } from '../../../helpers/server-process.ts';

const temps: Array<{ remove(): void }> = [];
afterEach(() => {
  for (const t of temps.splice(0)) t.remove();
});

/** An execution directory whose database holds `runs` runs (0: a start that failed before its first). */
function execution(runs: number): string {
  const t = tempDir();
  temps.push(t);
  const dir = join(t.path, 'exec');
  const layout = executionLayout(dir);
  mkdirSync(layout.internal, { recursive: true });
  const db = openDatabase(layout.database);
  const store = new StateStore(new SqliteTransitionLog(db));
  for (let i = 0; i < runs; i++)
    store.apply('RunStarted', { runId: `r${i}`, startedAt: 'x', reason: 'start' });
  db.close();
  return dir;
}

describe('choosing the execution directory', () => {
  const now = new Date('2026-11-26T10:00:00.000Z');

  it('resumes the directory it is given; --fresh on one without runs uses it too', () => {
    const dir = execution(1);
    expect(chooseExecutionDir('p', { execution: dir }, now)).toEqual({ ok: true, dir, fresh: false });
    const empty = execution(0);
    expect(chooseExecutionDir('p', { execution: empty, fresh: true }, now)).toEqual({
      ok: true,
      dir: empty,
      fresh: true,
    });
  });

  it('--fresh with an explicit directory that has runs is refused, saying what to do', () => {
    const result = chooseExecutionDir('p', { execution: execution(2), fresh: true }, now);
    expect(result.ok).toBe(false);
    expect(!result.ok && result.message).toMatch(
      /already holds runs; name a new --execution directory, or leave --fresh out/,
    );
  });

  it('--fresh on the default directory takes a new one beside it', () => {
    const t = tempDir();
    temps.push(t);
    const cwd = process.cwd();
    process.chdir(t.path);
    try {
      // The default directory of plan "plan" is ribosome-runs/plan: give it a run, then ask for --fresh.
      const layout = executionLayout(join('ribosome-runs', 'plan'));
      mkdirSync(layout.internal, { recursive: true });
      const db = openDatabase(layout.database);
      new StateStore(new SqliteTransitionLog(db)).apply('RunStarted', {
        runId: 'r',
        startedAt: 'x',
        reason: 'start',
      });
      db.close();
      const chosen = chooseExecutionDir('plan', { fresh: true }, now);
      expect(chosen.ok && chosen.dir).toBe(
        join(process.cwd(), 'ribosome-runs/plan-2026-11-26T10-00-00-000Z'),
      );
    } finally {
      process.chdir(cwd);
    }
  });
});

describe('the resume notice', () => {
  it('says what it resumes, how the previous run ended, and what comes next', () => {
    expect(
      resumeNotice('ribosome-runs/x', {
        runCount: 3,
        done: 2,
        total: 3,
        nextCodonId: 'three',
        previousRunStatus: 'crashed',
        recovered: true,
      }),
    ).toBe(
      'resuming ribosome-runs/x: run 3 (the previous run crashed; back to its last clean checkpoint), 2 of 3 codons done, next: three (--fresh starts anew)',
    );
    expect(
      resumeNotice('x', { runCount: 2, done: 3, total: 3, previousRunStatus: 'completed', recovered: false }),
    ).toBe(
      'resuming x: run 2, 3 of 3 codons done, every codon is done, nothing left to run (--fresh starts anew)',
    );
    // A wait for approval goes on: it, not the next codon, is what comes next.
    const waiting = { runCount: 2, done: 1, total: 3, nextCodonId: 'two', approvalWaitCodonId: 'one' };
    expect(resumeNotice('x', { ...waiting, previousRunStatus: 'crashed', recovered: true })).toBe(
      'resuming x: run 2 (the previous run crashed; back to its last clean checkpoint), 1 of 3 codons done, codon one waits for approval (--fresh starts anew)',
    );
  });
});
