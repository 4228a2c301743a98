import type { StorageFaultKind } from './fault.ts';
import { describeLoss, type IdentityLoss, type LossKind } from './identity.ts';
import { diagnose } from './probe.ts';

/** A durable write that failed: the server can no longer promise that nothing is lost. */
export class StorageFault extends Error {
  readonly code = 'STORAGE_FAILED';
  /** What failed; `deleted` / `replaced`: the database or checkpoint store is no longer the one opened. */
  readonly kind: StorageFaultKind | LossKind;
  /** The file whose write failed. */
  readonly path: string;
  /** What was being written ("journal append", "state transition"). */
  readonly what: string;

  constructor(what: string, path: string, cause: unknown, lost?: IdentityLoss) {
    const found = lost ? { kind: lost.kind, message: describeLoss(lost) } : diagnose(cause, path);
    const detail = cause instanceof Error ? cause.message : String(cause);
    super(found?.message ?? `cannot write ${path}: ${detail}`, { cause });
    this.name = 'StorageFault';
    this.kind = found?.kind ?? 'unwritable';
    this.path = path;
    this.what = what;
  }

  /** The database or the checkpoint store deleted or replaced under the server. */
  static lost(loss: IdentityLoss): StorageFault {
    return new StorageFault(loss.what, loss.path, undefined, loss);
  }

  /** History is gone (deleted or replaced), not merely unwritable. */
  get historyLost(): boolean {
    return this.kind === 'deleted' || this.kind === 'replaced';
  }
}

/** What the person at the terminal can do about a fault (the sentence after its message). */
export function faultAdvice(fault: StorageFault): string {
  return fault.historyLost
    ? "What the execution recorded is not where the server keeps it any more: the server stops rather than record into a file nobody will read. Put .ribosome/ back from a backup, or start over in a new execution directory (a restart refuses this one's remains)."
    : 'Nothing recorded is lost: free space (or repair the disk), then run the plan again to resume.';
}

/** Something the guard checks before each write and on `check()`: a loss, or undefined. */
export type StorageWatch = { check(): IdentityLoss | undefined; close(): void };

/**
 * The execution's durable writes (journal, state transitions) go through one guard. The first that
 * fails becomes the fault, reported once to every listener (on a later tick, never from inside the
 * failing write); every write after it is refused with the same fault, without touching the disk.
 */
export class StorageGuard {
  readonly #path: string;
  readonly #listeners = new Set<(fault: StorageFault) => void>();
  readonly #watches: StorageWatch[] = [];
  #fault: StorageFault | undefined;

  /** `path`: the file the guarded writes go to (the database), named in the fault. */
  constructor(path: string) {
    this.#path = path;
  }

  get fault(): StorageFault | undefined {
    return this.#fault;
  }

  onFault(listener: (fault: StorageFault) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Checks `watch` before every write from now on, and at each `check()`. */
  watch(watch: StorageWatch | undefined): void {
    if (watch) this.#watches.push(watch);
  }

  /**
   * Runs the watches (a few syscalls each): a loss becomes the fault, reported like a failed write.
   * Returns the fault, if there is one.
   */
  check(): StorageFault | undefined {
    if (this.#fault) return this.#fault;
    for (const watch of this.#watches) {
      const loss = watch.check();
      if (loss) return this.#trip(StorageFault.lost(loss));
    }
    return undefined;
  }

  /** Lets go of what the watches hold open. */
  close(): void {
    for (const watch of this.#watches.splice(0)) watch.close();
  }

  /** Runs one write; throws the StorageFault if it (or an earlier one) failed. */
  write<T>(what: string, write: () => T): T {
    const found = this.check();
    if (found) throw found;
    try {
      return write();
    } catch (error) {
      // A guarded write inside another (one transaction over several tables) failed: reported once.
      if (error instanceof StorageFault) throw error;
      throw this.#trip(new StorageFault(what, this.#path, error));
    }
  }

  #trip(fault: StorageFault): StorageFault {
    this.#fault = fault;
    queueMicrotask(() => {
      for (const listener of this.#listeners) listener(fault);
    });
    return fault;
  }
}

/**
 * `error` as a StorageFault when it is a failed file or database operation that shows a storage
 * problem (a full disk at startup); any other error is returned as it is.
 */
export function asStorageFault(what: string, path: string, error: unknown): unknown {
  if (error instanceof StorageFault || typeof error !== 'object' || error === null) return error;
  const e = error as { code?: unknown; path?: unknown };
  const errno = typeof e.code === 'string' && /^E[A-Z]+$/.test(e.code);
  if (!errno && e.code !== 'ERR_SQLITE_ERROR') return error;
  const at = typeof e.path === 'string' ? e.path : path;
  return diagnose(error, at) ? new StorageFault(what, at, error) : error;
}
