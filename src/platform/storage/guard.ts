import type { StorageFaultKind } from './fault.ts';
import { diagnose } from './probe.ts';

/** A durable write that failed: the server can no longer promise that nothing is lost. */
export class StorageFault extends Error {
  readonly code = 'STORAGE_FAILED';
  readonly kind: StorageFaultKind;
  /** The file whose write failed. */
  readonly path: string;
  /** What was being written ("journal append", "state transition"). */
  readonly what: string;

  constructor(what: string, path: string, cause: unknown) {
    const found = diagnose(cause, path);
    const detail = cause instanceof Error ? cause.message : String(cause);
    super(found?.message ?? `cannot write ${path}: ${detail}`, { cause });
    this.name = 'StorageFault';
    this.kind = found?.kind ?? 'unwritable';
    this.path = path;
    this.what = what;
  }
}

/**
 * The execution's durable writes (journal, state transitions) go through one guard. The first that
 * fails becomes the fault, reported once to every listener (on a later tick, never from inside the
 * failing write); every write after it is refused with the same fault, without touching the disk.
 */
export class StorageGuard {
  readonly #path: string;
  readonly #listeners = new Set<(fault: StorageFault) => void>();
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

  /** Runs one write; throws the StorageFault if it (or an earlier one) failed. */
  write<T>(what: string, write: () => T): T {
    if (this.#fault) throw this.#fault;
    try {
      return write();
    } catch (error) {
      // A guarded write inside another (one transaction over several tables) failed: reported once.
      if (error instanceof StorageFault) throw error;
      const fault = new StorageFault(what, this.#path, error);
      this.#fault = fault;
      queueMicrotask(() => {
        for (const listener of this.#listeners) listener(fault);
      });
      throw fault;
    }
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
