/**
 * The values of the protocol's enums that a page checks by hand, without zod (the web dashboard
 * bundles this file, not the schemas): shared.ts and errors.ts build their schemas from these lists.
 */

/** Codon statuses (shared.ts CodonStatus). */
export const CODON_STATUSES = [
  'pending',
  'preparing',
  'running',
  'completed',
  'failed',
  'skipped',
  'stopped',
] as const;

/** A checkpoint's type (shared.ts CheckpointType). */
export const CHECKPOINT_TYPES = ['rig-setup', 'completed', 'error', 'skipped'] as const;

/** Why a codon failed (shared.ts FailureReasonType): the spec's values, then ours (docs/protocol.md#protocol-extensions). */
export const FAILURE_REASON_TYPES = {
  spec: ['timeout', 'rate-limit', 'api-error', 'sentinel-load-failure', 'unknown'],
  ours: ['budget', 'verify', 'usage-limit'],
} as const;

/** An error's severity (errors.ts ErrorSeverity). */
export const ERROR_SEVERITIES = ['fatal', 'codon', 'operation', 'warning'] as const;

/** What a client should do for each severity (spec section 7). */
export const suggestedAction: Record<(typeof ERROR_SEVERITIES)[number], string> = {
  fatal: 'reconnect after the fix',
  codon: 'inspect failureReason; consider codon.redo',
  operation: 'read message; retry if suitable',
  warning: 'log and continue',
};
