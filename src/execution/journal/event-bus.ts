import type { Logger } from 'pino';
import {
  type EventInput,
  type EventType,
  eventDataSchemas,
  isJournaled,
  makeEvent,
  type ServerEvent,
  type ServerEventOf,
} from '../../core/protocol/index.ts';
import { newEventId } from './event-id.ts';
import type { EventRedaction } from './event-redaction.ts';
import type { Journal, JournalEntry } from './journal.ts';

/** A subscriber gets each event with its JSON, serialized once for everyone. */
export type BusListener = (event: ServerEvent, json: string) => void;
/** A batch subscriber gets everything one commit made durable, in order (for corked fan-out). */
export type BatchListener = (batch: ReadonlyArray<{ event: ServerEvent; json: string }>) => void;

type Pending = { event: ServerEvent; json: string; resolve: () => void; reject: (error: unknown) => void };

/**
 * Under a steady stream the next commit waits, after the previous one ended, as long as that one
 * took (commit and delivery), up to this: the event loop spends at most about half its time
 * committing and writing to clients, and each commit carries more events. A publish after a quiet
 * spell is committed on the next turn, as before.
 */
const MAX_COMMIT_SPACING_MS = 10;

/** Events appended inside a caller's transaction: delivered once it commits, refused if it does not. */
export type PendingCommit = { deliver: () => void; reject: (error: unknown) => void };

/**
 * The one path every journaled event takes: validate, persist, then announce.
 *
 * Events published in the same turn of the event loop are committed in one transaction (group
 * commit), then handed to the listeners in publish order; under a steady stream, the events of a
 * few turns (MAX_COMMIT_SPACING_MS). A publisher that awaits `publish` knows the event is durable
 * and has been handed to every listener.
 */
export class EventBus {
  readonly #journal: Journal;
  readonly #logger: Logger | undefined;
  readonly #listeners = new Set<BusListener>();
  readonly #batchListeners = new Set<BatchListener>();
  #pending: Pending[] = [];
  #scheduled = false;
  #timer: NodeJS.Timeout | undefined;
  /** When the last flush ended and how long it took (performance.now() ms). */
  #lastFlushEnd = Number.NEGATIVE_INFINITY;
  #lastFlushMs = 0;
  #runId: string;
  #failure: unknown;
  readonly #redaction: EventRedaction | undefined;

  /** `redaction`: the server's secrets, taken out of every event before it is journaled or sent. */
  constructor(options: { journal: Journal; runId: string; logger?: Logger; redaction?: EventRedaction }) {
    this.#journal = options.journal;
    this.#runId = options.runId;
    this.#logger = options.logger;
    this.#redaction = options.redaction;
  }

  /** `value` (a transition, before it is stored) without the server's secrets; the same when clean. */
  redact<T>(value: T): T {
    return this.#redaction ? this.#redaction.value(value) : value;
  }

  /** An event and its JSON as they may be journaled and sent: redacted, serialized once. */
  #made(event: ServerEvent): { event: ServerEvent; json: string } {
    const json = JSON.stringify(event);
    return this.#redaction ? this.#redaction.event(event, json) : { event, json };
  }

  get runId(): string {
    return this.#runId;
  }

  /** Events published from now on belong to this run. */
  setRunId(runId: string): void {
    this.flush();
    this.#runId = runId;
  }

  /** Set once journaling has failed for good (fail()): every publish is refused with it. */
  get failure(): unknown {
    return this.#failure;
  }

  /**
   * Journaling is over (the storage failed): what is pending and everything published from now on
   * is refused with `error`, never announced, since it could not be made durable.
   */
  fail(error: unknown): void {
    this.#failure ??= error;
    const pending = this.#pending;
    this.#pending = [];
    for (const p of pending) p.reject(this.#failure);
  }

  /**
   * Hands an event to the listeners without journaling it: only for what cannot be journaled (the
   * fatal error that says journaling failed). Validated like any other.
   */
  announceUnjournaled<T extends EventType>(type: T, data: EventInput<T>): ServerEventOf<T> {
    const event = makeEvent(type, eventDataSchemas[type].parse(data) as ServerEventOf<T>['data']);
    const made = this.#made(event as ServerEvent);
    this.#deliver([made]);
    return made.event as ServerEventOf<T>;
  }

  subscribe(listener: BusListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  subscribeBatch(listener: BatchListener): () => void {
    this.#batchListeners.add(listener);
    return () => this.#batchListeners.delete(listener);
  }

  publish<T extends EventType>(type: T, data: EventInput<T>): Promise<ServerEventOf<T>> {
    if (this.#failure !== undefined) return Promise.reject(this.#failure);
    if (!isJournaled(type)) {
      return Promise.reject(
        new Error(`${type} is a connection event: send it to one client, never journal it`),
      );
    }
    const parsed = eventDataSchemas[type].safeParse(data);
    if (!parsed.success) {
      return Promise.reject(new Error(`invalid ${type} payload: ${parsed.error.message}`));
    }
    const { event, json } = this.#made(
      makeEvent(type, parsed.data as ServerEventOf<T>['data'], newEventId()) as ServerEvent,
    );
    return new Promise((resolve, reject) => {
      this.#pending.push({ event, json, resolve: () => resolve(event as ServerEventOf<T>), reject });
      if (!this.#scheduled) {
        this.#scheduled = true;
        const wait =
          this.#lastFlushEnd + Math.min(this.#lastFlushMs, MAX_COMMIT_SPACING_MS) - performance.now();
        if (wait < 1) setImmediate(() => this.flush());
        else this.#timer = setTimeout(() => this.flush(), wait);
      }
    });
  }

  /** Commits everything pending now and delivers it; used by the scheduler and at shutdown. */
  flush(): void {
    const start = performance.now();
    let commit: PendingCommit | undefined;
    try {
      commit = this.appendPending();
    } catch {
      return; // Already refused to their publishers.
    }
    commit.deliver();
    this.#lastFlushEnd = performance.now();
    this.#lastFlushMs = this.#lastFlushEnd - start;
  }

  /**
   * Appends everything pending to the journal without delivering it: for a caller that writes the
   * journal and other tables in one transaction, and must deliver only after it commits (a client
   * never sees an event that is not durable). Throws when the append fails (the batch is refused).
   */
  appendPending(): PendingCommit {
    this.#scheduled = false;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    const batch = this.#pending;
    this.#pending = [];
    if (batch.length === 0) return { deliver: () => {}, reject: () => {} };
    const runId = this.#runId;
    const entries: JournalEntry[] = batch.map((p) => ({
      id: p.event.id,
      timestamp: p.event.timestamp,
      type: p.event.type,
      runId,
      json: p.json,
    }));
    try {
      this.#journal.append(entries);
    } catch (error) {
      this.#logger?.error({ err: error, events: batch.length }, 'journal append failed; events not sent');
      for (const p of batch) p.reject(error);
      throw error;
    }
    return {
      deliver: () => {
        this.#deliver(batch);
        for (const p of batch) p.resolve();
      },
      reject: (error) => {
        this.#logger?.error({ err: error, events: batch.length }, 'commit failed; events not sent');
        for (const p of batch) p.reject(error);
      },
    };
  }

  #deliver(batch: ReadonlyArray<{ event: ServerEvent; json: string }>): void {
    for (const listener of this.#batchListeners) {
      try {
        listener(batch);
      } catch (error) {
        this.#logger?.error({ err: error }, 'event batch listener failed');
      }
    }
    for (const p of batch) {
      for (const listener of this.#listeners) {
        try {
          listener(p.event, p.json);
        } catch (error) {
          this.#logger?.error({ err: error, type: p.event.type }, 'event listener failed');
        }
      }
    }
  }
}
