import { DatabaseSync } from 'node:sqlite';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';

/**
 * When and how hard the checkpointer works. Defaults:
 * - intervalMs 200: at most one round of checkpoints per 200 ms while commits come;
 * - idleMs 1000: after a second without a commit the WAL file is truncated to nothing;
 * - restartPages 8192 (32 MiB of 4 KiB pages): a WAL that passive checkpoints could not reset by then
 *   gets a RESTART checkpoint, which holds the writer back while it copies what is left (the only
 *   checkpoint here that may).
 */
export type CheckpointerOptions = { intervalMs?: number; idleMs?: number; restartPages?: number };

/** Slots of the shared Int32Array. */
const SIGNAL = 0; // bumped by each commit and by stop
const STOP = 1;
const STARTED = 2;
const DONE = 3;
const PASSIVE = 4;
const CAUGHT_UP = 5;
const RESTARTS = 6;
const TRUNCATES = 7;
const MAX_LOG = 8;
const SLOTS = 9;

/** Checkpoints run so far, for benchmarks and tests. */
export type CheckpointStats = {
  /** PASSIVE checkpoints run. */
  passive: number;
  /** Rounds that ended with every frame copied and no commit meanwhile: the next write resets the WAL. */
  caughtUp: number;
  /** RESTART checkpoints (the WAL reached restartPages without being reset). */
  restarts: number;
  /** TRUNCATE checkpoints that emptied the WAL file once idle. */
  truncates: number;
  /** The most frames a checkpoint found in the WAL. */
  maxWalFrames: number;
};

/** After a round that a commit overlapped, this many short ones, each started just after a commit. */
const CATCH_UP_ROUNDS = 4;
/** How long a catch-up round waits for the next commit to end before it starts anyway. */
const CATCH_UP_WAIT_MS = 20;
const ROLE = 'ribosome-wal-checkpointer';
/** How long close() waits for a checkpoint in progress to end before it lets the thread go. */
const STOP_WAIT_MS = 2_000;

type Setup = {
  role: typeof ROLE;
  file: string;
  synchronous: number;
  state: Int32Array;
  options: Required<CheckpointerOptions>;
};
type CheckpointRow = { busy: number; log: number; checkpointed: number };

/**
 * Checkpoints an execution database's WAL from a worker thread on its own connection, so that the
 * writer (the server's event loop, with SQLite's auto-checkpoint off) only appends and fsyncs the WAL.
 *
 * A commit bumps a shared counter (`noteCommit`, an atomic add: no message). The worker wakes on it
 * and runs a PASSIVE checkpoint (it never takes the writer's lock) at most once per `intervalMs`;
 * when commits came while it ran, it checkpoints again just after the next commit ends (up to
 * CATCH_UP_ROUNDS times), since SQLite starts the WAL over only at the first write after a
 * checkpoint that copied every frame. So the WAL holds about one interval of writes (a few MiB at
 * 5 000 events/s). What bounds it when passive checkpoints keep losing that race: a RESTART
 * checkpoint once it holds `restartPages`. After `idleMs` without a commit, a TRUNCATE checkpoint
 * empties the file (given up at once if the writer is busy).
 *
 * Durability is SQLite's as before: a commit is durable once its WAL frames are synced; checkpoints
 * only copy them into the database file (synced with the writer's `synchronous`).
 */
export class WalCheckpointer {
  readonly #worker: Worker;
  readonly #state: Int32Array;
  #stopped = false;

  /**
   * `onError`: a checkpoint failed (reported once per kind of failure) or the thread did.
   * `onGone`: the thread ended before stop() (it could not open the database, or crashed): nothing
   * checkpoints any more, the writer must again (SqliteJournal turns SQLite's auto-checkpoint back on).
   */
  constructor(
    file: string,
    synchronous: number,
    options: CheckpointerOptions = {},
    handlers: { onError?: (error: Error) => void; onGone?: () => void } = {},
  ) {
    this.#state = new Int32Array(new SharedArrayBuffer(SLOTS * 4));
    const setup: Setup = {
      role: ROLE,
      file,
      synchronous,
      state: this.#state,
      options: { intervalMs: 200, idleMs: 1_000, restartPages: 8_192, ...options },
    };
    this.#worker = new Worker(new URL(import.meta.url), { workerData: setup });
    this.#worker.on('message', (message: { error?: string }) => {
      if (message.error) handlers.onError?.(new Error(`WAL checkpoint failed: ${message.error}`));
    });
    this.#worker.on('error', (error) => handlers.onError?.(error));
    this.#worker.on('exit', () => {
      if (!this.#stopped) handlers.onGone?.();
    });
    // A checkpointer never keeps the process alive: what it has not copied is in the WAL.
    this.#worker.unref();
  }

  get stats(): CheckpointStats {
    const at = (slot: number) => Atomics.load(this.#state, slot);
    return {
      passive: at(PASSIVE),
      caughtUp: at(CAUGHT_UP),
      restarts: at(RESTARTS),
      truncates: at(TRUNCATES),
      maxWalFrames: at(MAX_LOG),
    };
  }

  /** Tells the worker a commit happened (no message, no wake-up unless it waits for one). */
  noteCommit(): void {
    Atomics.add(this.#state, SIGNAL, 1);
    Atomics.notify(this.#state, SIGNAL);
  }

  /**
   * Ends the worker: a checkpoint in progress is let finish (bounded, STOP_WAIT_MS) so its
   * connection is closed before the writer's, which then checkpoints and removes the WAL as usual.
   */
  stop(): void {
    if (this.#stopped) return;
    this.#stopped = true;
    Atomics.store(this.#state, STOP, 1);
    Atomics.add(this.#state, SIGNAL, 1);
    Atomics.notify(this.#state, SIGNAL);
    Atomics.notify(this.#state, STOP);
    if (Atomics.load(this.#state, STARTED) === 1) Atomics.wait(this.#state, DONE, 0, STOP_WAIT_MS);
    void this.#worker.terminate();
  }
}

/** The worker's loop: synchronous, asleep in Atomics.wait between checkpoints. */
function checkpointLoop({ file, synchronous, state, options }: Setup): void {
  Atomics.store(state, STARTED, 1);
  let db: DatabaseSync | undefined;
  try {
    if (Atomics.load(state, STOP) === 1) return;
    db = new DatabaseSync(file);
    db.exec(`PRAGMA busy_timeout = 0; PRAGMA synchronous = ${synchronous};`);
    const conn = db;
    const statements = {
      PASSIVE: conn.prepare('PRAGMA wal_checkpoint(PASSIVE)'),
      RESTART: conn.prepare('PRAGMA wal_checkpoint(RESTART)'),
      TRUNCATE: conn.prepare('PRAGMA wal_checkpoint(TRUNCATE)'),
    };
    let lastError = '';
    const checkpoint = (mode: keyof typeof statements): CheckpointRow | undefined => {
      try {
        return statements[mode].get() as CheckpointRow;
      } catch (error) {
        // Reported once per kind of failure (a full disk fails every round); the WAL keeps the data.
        const message = (error as Error).message;
        if (message !== lastError) parentPort?.postMessage({ error: message });
        lastError = message;
        return undefined;
      }
    };
    const stopping = () => Atomics.load(state, STOP) === 1;
    const count = (slot: number) => Atomics.add(state, slot, 1);
    /** A PASSIVE checkpoint; true when no commit came while it ran (every frame copied). */
    const passive = (): { row: CheckpointRow | undefined; caughtUp: boolean } => {
      const before = Atomics.load(state, SIGNAL);
      const row = checkpoint('PASSIVE');
      count(PASSIVE);
      if (row && row.log > Atomics.load(state, MAX_LOG)) Atomics.store(state, MAX_LOG, row.log);
      const copiedAll = row !== undefined && row.busy === 0 && row.checkpointed === row.log;
      return { row, caughtUp: copiedAll && Atomics.load(state, SIGNAL) === before };
    };
    // Until the first commit: what a previous life left in the WAL goes after idleMs.
    let seen = 0;
    let last = Number.NEGATIVE_INFINITY;
    let dirty = true;
    while (!stopping()) {
      if (Atomics.load(state, SIGNAL) === seen) {
        const woke = Atomics.wait(state, SIGNAL, seen, dirty ? options.idleMs : undefined);
        // Idle: copied first without the writer's lock (a write the bus did not signal), then
        // truncated (with that lock, given up at once if the writer holds it).
        if (woke === 'timed-out' && !stopping() && passive().caughtUp) {
          const row = checkpoint('TRUNCATE');
          dirty = row === undefined || row.busy !== 0;
          if (!dirty) count(TRUNCATES);
        }
        continue;
      }
      const wait = last + options.intervalMs - performance.now();
      if (wait > 0) {
        Atomics.wait(state, STOP, 0, wait);
        continue;
      }
      last = performance.now();
      dirty = true;
      seen = Atomics.load(state, SIGNAL);
      // The bulk of the interval's frames; then, if commits overlapped it, the few they added, each
      // round started just as a commit ends (the writer's next one is then furthest away).
      let round = passive();
      for (let i = 0; !round.caughtUp && round.row && i < CATCH_UP_ROUNDS && !stopping(); i++) {
        Atomics.wait(state, SIGNAL, Atomics.load(state, SIGNAL), CATCH_UP_WAIT_MS);
        seen = Atomics.load(state, SIGNAL);
        round = passive();
      }
      if (round.caughtUp) count(CAUGHT_UP);
      // The WAL went restartPages without a reset (or a burst wrote that much in one interval).
      if (round.row && round.row.log >= options.restartPages && !stopping()) {
        // Copies what the last passive round left; writers wait that long (busy_timeout).
        db.exec('PRAGMA busy_timeout = 1000');
        const row = checkpoint('RESTART');
        db.exec('PRAGMA busy_timeout = 0');
        if (row && row.busy === 0) count(RESTARTS);
      }
    }
  } catch (error) {
    parentPort?.postMessage({ error: (error as Error).message });
  } finally {
    try {
      db?.close();
    } catch {
      // Closing after a failure: nothing more to do, the writer's connection recovers the WAL.
    }
    Atomics.store(state, DONE, 1);
    Atomics.notify(state, DONE);
  }
}

if (!isMainThread && (workerData as Partial<Setup> | null)?.role === ROLE)
  checkpointLoop(workerData as Setup);
