import { z } from 'zod';
import { err, type Result } from '../../core/result.ts';
import { ERRNO_HINTS } from '../../platform/processes/spawn-safely.ts';

/**
 * Codes of the checkpoint store's errors. CHECKPOINT_NOT_FOUND, CHECKPOINT_AMBIGUOUS, CHECKPOINT_FAILED and
 * CHECKPOINT_CORRUPT match the protocol's codes of the same name; the engine maps the others (or sends them as they are).
 */
export const CheckpointErrorCode = z.enum([
  /** git is missing or too old. */
  'GIT_UNAVAILABLE',
  /** The shadow repository cannot be created or opened (unwritable directory, missing work tree). */
  'STORE_UNAVAILABLE',
  /** An argument was refused before anything ran (bad run id, unknown checkpoint type, short SHA). */
  'INVALID_INPUT',
  'RUN_EXISTS',
  'RUN_NOT_FOUND',
  /** A checkpoint could not be written; nothing was recorded. */
  'CHECKPOINT_FAILED',
  'CHECKPOINT_NOT_FOUND',
  'CHECKPOINT_AMBIGUOUS',
  /** The work tree could not be (completely) restored. */
  'RESTORE_FAILED',
  /**
   * A restore found an object of the checkpoint missing or not matching its hash (the store was
   * written by someone else); nothing was restored.
   */
  'CHECKPOINT_CORRUPT',
  /** A read (list, diff) failed. */
  'STORE_FAILED',
]);
export type CheckpointErrorCode = z.infer<typeof CheckpointErrorCode>;

export type CheckpointError = {
  code: CheckpointErrorCode;
  message: string;
  /** CHECKPOINT_AMBIGUOUS: the full SHAs that matched. */
  candidates?: string[];
};

/** What every operation of the checkpoint store returns. */
export type StoreResult<T> = Result<T, CheckpointError>;

export { ok } from '../../core/result.ts';

export function fail(code: CheckpointErrorCode, message: string): { ok: false; error: CheckpointError } {
  return err({ code, message });
}

/**
 * A failed file operation of the store's own (a commit or ref write), in the words a failed git start
 * uses for the same cause: `EMFILE (too many open files in this process: ...), open '<path>'`.
 * Other errors keep their message (`ENOSPC: no space left on device, write`), which the engine's
 * storage diagnosis reads.
 */
export function fileFailureWords(error: unknown): string {
  const err = error as NodeJS.ErrnoException;
  const hint = err?.code === 'EMFILE' || err?.code === 'ENFILE' ? ERRNO_HINTS[err.code] : undefined;
  if (!hint) return err?.message ?? String(error);
  return `${err.code} (${hint})${err.syscall ? `, ${err.syscall}` : ''}${err.path ? ` '${err.path}'` : ''}`;
}
