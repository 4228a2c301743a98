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
  /**
   * With a journal that syncs apart from its commits (Journal.deferredSync): batches committed and
   * waiting for their sync, announced in order once it ends; and whether one is running.
   */
  #unsynced: Pending[][] = [];
  #syncing = false;
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
    const pending = [...this.#unsynced.splice(0).flat(), ...this.#pending];
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
      this.#schedule();
    });
  }

  #schedule(): void {
    // While a sync runs, what is published is committed as one batch when it ends (#synced).
    if (this.#scheduled || this.#syncing) return;
    this.#scheduled = true;
    if (this.#journal.deferredSync) {
      setImmediate(() => this.#commitUnsynced());
      return;
    }
    const wait = this.#lastFlushEnd + Math.min(this.#lastFlushMs, MAX_COMMIT_SPACING_MS) - performance.now();
    if (wait < 1) setImmediate(() => this.flush());
    else this.#timer = setTimeout(() => this.flush(), wait);
  }

  /**
   * Group commit without holding the event loop on the disk: what is pending is committed without
   * its sync, which then runs on the thread pool; its events are announced once it ends. Events
   * published meanwhile wait for it, then go in the next commit and sync, together.
   */
  #commitUnsynced(): void {
    this.#scheduled = false;
    // A turn scheduled before a sync began: the sync's end commits what is pending.
    if (this.#syncing) return;
    const deferred = this.#journal.deferredSync;
    const batch = this.#pending;
    this.#pending = [];
    if (!deferred || batch.length === 0) return;
    try {
      deferred.appendUnsynced(this.#entries(batch));
    } catch (error) {
      this.#refuse(batch, error, 'journal append failed; events not sent');
      return;
    }
    this.#unsynced.push(batch);
    this.#syncing = true;
    const group = [...this.#unsynced];
    deferred.sync().then(
      () => {
        this.#syncing = false;
        // A synchronous flush meanwhile may have synced and announced them already.
        if (this.#unsynced[0] === group[0]) this.#announce(this.#unsynced.splice(0, group.length));
        if (this.#pending.length > 0) this.#commitUnsynced();
      },
      (error: unknown) => {
        this.#syncing = false;
        if (this.#unsynced[0] === group[0]) {
          this.#refuse(
            this.#unsynced.splice(0, group.length).flat(),
            error,
            'journal sync failed; events not sent',
          );
        }
        // What came meanwhile is tried (a failed disk refuses it too, and says so to its publishers).
        if (this.#pending.length > 0) this.#commitUnsynced();
      },
    );
  }

  /**
   * Syncs and announces the batches waiting for their sync: before anything committed after them.
   * A sync that fails refuses them to their publishers (the storage fault says the rest).
   */
  #drainUnsynced(): void {
    if (this.#unsynced.length === 0) return;
    const waiting = this.#unsynced.splice(0);
    try {
      this.#journal.deferredSync?.syncNow();
    } catch (error) {
      this.#refuse(waiting.flat(), error, 'journal sync failed; events not sent');
      return;
    }
    this.#announce(waiting);
  }

  #announce(batches: readonly Pending[][]): void {
    for (const batch of batches) {
      this.#deliver(batch);
      for (const p of batch) p.resolve();
    }
  }

  #refuse(batch: readonly Pending[], error: unknown, message: string): void {
    this.#logger?.error({ err: error, events: batch.length }, message);
    for (const p of batch) p.reject(error);
  }

  #entries(batch: readonly Pending[]): JournalEntry[] {
    const runId = this.#runId;
    return batch.map((p) => ({
      id: p.event.id,
      timestamp: p.event.timestamp,
      type: p.event.type,
      runId,
      json: p.json,
    }));
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
    // Batches still waiting for their sync go first (a client never sees them out of order).
    if (batch.length === 0) return { deliver: () => this.#drainUnsynced(), reject: () => {} };
    try {
      this.#journal.append(this.#entries(batch));
    } catch (error) {
      this.#refuse(batch, error, 'journal append failed; events not sent');
      throw error;
    }
    return {
      deliver: () => {
        // Committed with a sync (here or by the caller's transaction): so is all that came before.
        this.#journal.deferredSync?.markSynced();
        this.#drainUnsynced();
        this.#announce([batch]);
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
