import { z } from 'zod';

/**
 * Error codes carried in `error` events (spec section 7). The first three are the spec's; the rest are
 * ours, each a condition a client can switch on.
 */
export const ErrorCode = z.enum([
  'HANDSHAKE_REQUIRED',
  'INSUFFICIENT_PERMISSIONS',
  'ROLLBACK_IN_PROGRESS',
  // Frame-level problems.
  'INVALID_MESSAGE',
  'MESSAGE_TOO_LARGE',
  'UNKNOWN_COMMAND',
  'INVALID_COMMAND',
  'HANDSHAKE_ALREADY_DONE',
  // A history.sync while this client's previous one is still streaming.
  'HISTORY_SYNC_IN_PROGRESS',
  // Command-level problems answered by the engine.
  'UNKNOWN_CODON',
  'CODON_RUNNING',
  'NO_CODON_RUNNING',
  'CODON_STOPPING',
  'NOTHING_TO_REDO',
  'NO_NEXT_CODON',
  'SHUTTING_DOWN',
  'CHECKPOINT_NOT_FOUND',
  'CHECKPOINT_AMBIGUOUS',
  'CHECKPOINT_FAILED',
  'NO_SUCCESSFUL_CODON',
  'RIG_SETUP_FAILED',
  'NOT_SUPPORTED',
  'UNKNOWN_RUN',
  'CHECKPOINT_WARNING',
  // Execution errors (journaled, broadcast).
  'CODON_FAILED',
  'CODON_TIMEOUT',
  'RUN_CRASHED',
  'INTERNAL_ERROR',
  // The execution directory's storage (README "Faults").
  /** Fatal: a journal or state write failed (disk full, read-only or failing disk); the server stops. */
  'STORAGE_FAILED',
  /** A side file (archive manifest, rig directories) could not be written; the run goes on without it. */
  'STORAGE_WARNING',
  // Unattended runs (README "Unattended runs").
  /** Codon severity: a budget was exceeded and the codon stopped; also a refused start past the run's budget. */
  'BUDGET_EXCEEDED',
  /** Warning: a budget reached 80 % of a limit (sent once per scope and limit). */
  'BUDGET_WARNING',
  /** Codon severity: the agent printed nothing for stallTimeoutMs and was stopped. */
  'CODON_STALLED',
  /** Codon severity: a verification gate failed (after its feedback rounds, if any). */
  'VERIFY_FAILED',
  /** Warning: a webhook notification could not be delivered. */
  'NOTIFY_FAILED',
  // Running on the user's own work (README "Running on your own work").
  /** Warning: an `outputFiles` glob matched no file, or a matching file could not be copied out. */
  'OUTPUT_WARNING',
  /** Warning: the data directory changed during a codon (a shell command wrote there). */
  'DATA_DIR_CHANGED',
]);
export type ErrorCode = z.infer<typeof ErrorCode>;

export const ErrorSeverity = z.enum(['fatal', 'codon', 'operation', 'warning']);
export type ErrorSeverity = z.infer<typeof ErrorSeverity>;

/** What a client should do for each severity (spec section 7). */
export const suggestedAction: Record<ErrorSeverity, string> = {
  fatal: 'reconnect after the fix',
  codon: 'inspect failureReason; consider codon.redo',
  operation: 'read message; retry if suitable',
  warning: 'log and continue',
};
