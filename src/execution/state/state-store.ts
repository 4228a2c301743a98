import type { DatabaseSync, StatementSync } from 'node:sqlite';
import type { StateTransitionType } from '../../core/protocol/index.ts';
import type { StorageGuard } from '../../platform/storage/guard.ts';
import { inTransaction } from '../journal/database.ts';
import { type EngineState, initialState, reduce } from './reducer.ts';
import {
  parseTransition,
  type Transition,
  type TransitionData,
  transitionDataSchemas,
} from './transitions.ts';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS transitions (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  type TEXT NOT NULL,
  run_id TEXT,
  data TEXT NOT NULL,
  at TEXT NOT NULL
);
`;

/** Where transitions are kept: SQLite in the server, memory in unit tests. */
export interface TransitionLog {
  load(): Transition[];
  /** Appends the transitions all together (one transaction) or none. */
  append(...t: Transition[]): void;
}

/** Transitions in SQLite; appends go through the execution's storage guard, when given. */
export class SqliteTransitionLog implements TransitionLog {
  readonly #db: DatabaseSync;
  readonly #guard: StorageGuard | undefined;
  readonly #insert: StatementSync;
  readonly #all: StatementSync;

  constructor(db: DatabaseSync, guard?: StorageGuard) {
    this.#db = db;
    this.#guard = guard;
    db.exec(SCHEMA);
    this.#insert = db.prepare('INSERT INTO transitions (type, run_id, data, at) VALUES (?, ?, ?, ?)');
    this.#all = db.prepare('SELECT type, data FROM transitions ORDER BY seq');
  }

  load(): Transition[] {
    return (this.#all.all() as Array<{ type: string; data: string }>).map((row) =>
      parseTransition(row.type, JSON.parse(row.data)),
    );
  }

  append(...transitions: Transition[]): void {
    const at = new Date().toISOString();
    const insert = (t: Transition) =>
      this.#insert.run(t.type, 'runId' in t.data ? t.data.runId : null, JSON.stringify(t.data), at);
    const write = () => {
      if (transitions.length === 1 && transitions[0]) insert(transitions[0]);
      else inTransaction(this.#db, () => transitions.forEach(insert));
    };
    if (this.#guard) this.#guard.write('state transition', write);
    else write();
  }
}

export class MemoryTransitionLog implements TransitionLog {
  readonly rows: Transition[] = [];
  load(): Transition[] {
    return [...this.rows];
  }
  append(...t: Transition[]): void {
    this.rows.push(...t);
  }
}

/**
 * The event-sourced state: replayed from the log at start; `apply` validates a transition against
 * the current state, persists it, then folds it in. A transition the state cannot take throws and
 * changes nothing.
 */
export class StateStore {
  readonly #log: TransitionLog;
  #state: EngineState;

  constructor(log: TransitionLog) {
    this.#log = log;
    let state = initialState();
    for (const t of log.load()) state = reduce(state, t);
    this.#state = state;
  }

  get state(): EngineState {
    return this.#state;
  }

  apply<T extends StateTransitionType>(type: T, data: TransitionData<T>): Transition {
    const [applied] = this.applyAll([{ type, data } as Transition]);
    if (!applied) throw new Error('no transition applied');
    return applied.transition;
  }

  /**
   * Several transitions as one step (a rollback's end of one run and start of the next): each must
   * be valid after the ones before it, and all are persisted in one transaction, or none is.
   * Returns each with the state it led to.
   */
  applyAll(transitions: readonly Transition[]): Array<{ transition: Transition; state: EngineState }> {
    let next = this.#state;
    const applied = transitions.map((t) => {
      const transition = { type: t.type, data: transitionDataSchemas[t.type].parse(t.data) } as Transition;
      next = reduce(next, transition);
      return { transition, state: next };
    });
    this.#log.append(...applied.map((a) => a.transition));
    this.#state = next;
    return applied;
  }
}
