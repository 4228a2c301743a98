import type { DatabaseSync, StatementSync } from 'node:sqlite';
import type { StateTransitionType } from '../protocol/index.ts';
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
  append(t: Transition): void;
}

export class SqliteTransitionLog implements TransitionLog {
  readonly #insert: StatementSync;
  readonly #all: StatementSync;

  constructor(db: DatabaseSync) {
    db.exec(SCHEMA);
    this.#insert = db.prepare('INSERT INTO transitions (type, run_id, data, at) VALUES (?, ?, ?, ?)');
    this.#all = db.prepare('SELECT type, data FROM transitions ORDER BY seq');
  }

  load(): Transition[] {
    return (this.#all.all() as Array<{ type: string; data: string }>).map((row) =>
      parseTransition(row.type, JSON.parse(row.data)),
    );
  }

  append(t: Transition): void {
    const runId = 'runId' in t.data ? t.data.runId : null;
    this.#insert.run(t.type, runId, JSON.stringify(t.data), new Date().toISOString());
  }
}

export class MemoryTransitionLog implements TransitionLog {
  readonly rows: Transition[] = [];
  load(): Transition[] {
    return [...this.rows];
  }
  append(t: Transition): void {
    this.rows.push(t);
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
    const transition = { type, data: transitionDataSchemas[type].parse(data) } as Transition;
    const next = reduce(this.#state, transition);
    this.#log.append(transition);
    this.#state = next;
    return transition;
  }
}
