/**
 * Whether an execution directory's history can be trusted at a server's start (pure). A missing
 * `.ribosome/` is a fresh start; one whose database or checkpoint store is gone, empty or corrupt
 * while the other shows a history is refused: starting anew there would build on the remains.
 */

/** What the start found of the journal database (`.ribosome/ribosome.db`). */
export type DatabaseFacts =
  | { kind: 'absent' }
  | { kind: 'empty' }
  /** Not a SQLite database, or SQLite's quick_check found damage: `why` in SQLite's words. */
  | { kind: 'corrupt'; why: string }
  /**
   * `records`: rows of its events and transitions (0: nothing was ever recorded); `checkpoints`: the
   * checkpoints its transitions record (each is a commit in the store).
   */
  | { kind: 'healthy'; records: number; checkpoints?: number };

/** What the start found of the checkpoint store (`.ribosome/checkpoints.git`). */
export type StoreFacts =
  | { kind: 'absent' }
  | { kind: 'corrupt'; why: string }
  /** `runs`: its run branches; `headResolves`: HEAD names a commit, or a run branch not made yet. */
  | { kind: 'repository'; runs: number; headResolves: boolean };

export type IntegrityFacts = { internalExists: boolean; database: DatabaseFacts; store: StoreFacts };

export type IntegrityVerdict = { ok: true } | { ok: false; problem: string };

/** The words of `paths` for messages: `.ribosome/ribosome.db`, `.ribosome/checkpoints.git`. */
const DB = '.ribosome/ribosome.db';
const STORE = '.ribosome/checkpoints.git';

export function judgeIntegrity(facts: IntegrityFacts): IntegrityVerdict {
  if (!facts.internalExists) return { ok: true };
  const { database: db, store } = facts;
  const storeRuns = store.kind === 'repository' ? store.runs : 0;
  const recorded = db.kind === 'healthy' && db.records > 0;

  if (db.kind === 'corrupt') return refuse(`the journal database ${DB} is corrupt (${db.why})`);
  // Not a repository yet with nothing recorded: a first start cut short while it made the store.
  if (store.kind === 'corrupt' && recorded)
    return refuse(`the checkpoint store ${STORE} is not a readable git repository (${store.why})`);
  if (store.kind === 'repository' && store.runs > 0 && !store.headResolves)
    return refuse(`the checkpoint store ${STORE} is damaged: its HEAD names no commit`);
  // The state records a run before its branch is made: a store with runs and no record is a
  // database that was deleted, emptied or replaced.
  if (storeRuns > 0 && !recorded) {
    const how = db.kind === 'absent' ? 'is missing' : db.kind === 'empty' ? 'is empty' : 'holds no record';
    return refuse(`the journal database ${DB} ${how}, yet the checkpoint store holds ${storeRuns} run(s)`);
  }
  // Recorded checkpoints whose store is gone: they, and every rollback, went with it.
  if (db.kind === 'healthy' && (db.checkpoints ?? 0) > 0 && store.kind === 'absent')
    return refuse(
      `the checkpoint store ${STORE} is missing, yet the journal database records its checkpoints`,
    );
  return { ok: true };
}

function refuse(problem: string): IntegrityVerdict {
  return { ok: false, problem };
}
