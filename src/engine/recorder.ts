import type { Logger } from 'pino';
import type { ErrorSeverity, EventInput, EventType, StateTransitionType } from '../core/protocol/index.ts';
import type { EventBus, PendingCommit } from '../execution/journal/event-bus.ts';
import { type EngineState, summary } from '../execution/state/reducer.ts';
import type { StateStore } from '../execution/state/state-store.ts';
import type { Transition, TransitionData } from '../execution/state/transitions.ts';

/** Runs a write in one transaction over the state and the journal (identity in memory-only tests). */
export type Atomically = (write: () => void) => void;

/** An event to journal along with transitions. */
export type EventOf = { [T in EventType]: { type: T; data: EventInput<T> } }[EventType];

/**
 * Told of what the recorder records, synchronously, right after it is recorded (budgets watch costs
 * and token usage this way). A watcher must not throw; one that does is logged and skipped.
 */
export type RecorderWatcher = {
  transition?(transition: Transition, before: EngineState, after: EngineState): void;
  event?<T extends EventType>(type: T, data: EventInput<T>): void;
};

/**
 * How the engine records what happens: transitions (durable, folded into the state, announced as
 * state.transition), events, and execution errors (journaled and broadcast).
 */
export class Recorder {
  readonly #bus: EventBus;
  readonly #state: StateStore;
  readonly #log: Logger;
  readonly #atomically: Atomically;
  #closed = false;
  readonly #watchers: RecorderWatcher[] = [];

  constructor(options: { bus: EventBus; state: StateStore; logger: Logger; atomically?: Atomically }) {
    this.#bus = options.bus;
    this.#state = options.state;
    this.#log = options.logger;
    this.#atomically = options.atomically ?? ((write) => write());
  }

  /** The engine has stopped: the database is about to close, so nothing more is recorded. */
  close(): void {
    this.#closed = true;
  }

  /** Nothing can be recorded any more: the engine stopped, or the storage failed (the bus says so). */
  get halted(): boolean {
    return this.#closed || this.#bus.failure !== undefined;
  }

  /** Adds a watcher of every transition applied and every event published from now on. */
  watch(watcher: RecorderWatcher): void {
    this.#watchers.push(watcher);
  }

  publish<T extends EventType>(type: T, data: EventInput<T>): Promise<unknown> {
    if (this.#closed) return Promise.reject(new Error(`${type} after the engine stopped; not recorded`));
    const published = this.#bus.publish(type, data);
    if (type !== 'state.transition') this.#tell((w) => w.event?.(type, data));
    return published;
  }

  #tell(call: (watcher: RecorderWatcher) => void): void {
    for (const watcher of this.#watchers) {
      try {
        call(watcher);
      } catch (error) {
        this.#log.error({ err: error }, 'a recorder watcher failed');
      }
    }
  }

  /**
   * Records a transition (durable), then announces it as state.transition. Never throws: a
   * transition the state refuses, or a store that fails, is a rejected promise for the caller.
   */
  apply<T extends StateTransitionType>(type: T, data: TransitionData<T>): Promise<unknown> {
    return this.applyAll([{ type, data } as Transition]);
  }

  /**
   * Records transitions as one step (all durable together, or none), with their state.transition
   * announcements and the `events` that go with them (a crashed run's codon.completed): the state and
   * the journal are written in one transaction, so a kill never leaves one ahead of the other, and
   * clients get the events only once it has committed.
   */
  applyAll(given: readonly Transition[], events: readonly EventOf[] = []): Promise<unknown> {
    if (this.#closed) return Promise.reject(new Error('transition after the engine stopped; not recorded'));
    // Stored as the journal's events are: without the server's secrets (a failure's message may quote one).
    const transitions = this.#bus.redact(given);
    let announced: Promise<unknown> = Promise.resolve();
    let commit: PendingCommit | undefined;
    let applied: ReturnType<StateStore['applyAll']> = [];
    const before = this.#state.state;
    try {
      this.#atomically(() => {
        applied = this.#state.applyAll(transitions);
        announced = Promise.all([
          ...applied.map(({ transition, state }) => {
            const d = transition.data as { runId?: string; codonId?: string };
            return this.publish('state.transition', {
              transitionType: transition.type,
              ...(d.runId ? { runId: d.runId } : {}),
              ...(d.codonId ? { codonId: d.codonId } : {}),
              transition: { type: transition.type, data: transition.data as Record<string, unknown> },
              resultingState: summary(state),
            });
          }),
          ...events.map((e) => this.publish(e.type, e.data)),
        ]);
        commit = this.#bus.appendPending();
      });
    } catch (error) {
      commit?.reject(error);
      // The publishers' promises are refused too; this one says why.
      announced.catch(() => {});
      return Promise.reject(error);
    }
    commit?.deliver();
    let previous = before;
    for (const { transition, state } of applied) {
      const from = previous;
      this.#tell((w) => w.transition?.(transition, from, state));
      previous = state;
    }
    return announced;
  }

  async reportError(code: string, message: string, severity: ErrorSeverity, codon?: string): Promise<void> {
    this.#log.error({ code, codon }, message);
    await this.publish('error', {
      message,
      fatal: severity === 'fatal',
      severity,
      code,
      ...(codon ? { codon } : {}),
    });
  }
}
