import { z } from 'zod';
import { ERROR_SEVERITIES } from './value-names.ts';

/**
 * Error codes carried in `error` events (spec section 7). The first three are the spec's; the rest are
 * ours, each a condition a client can switch on (what each means: `errorCodeDescriptions` below).
 */
export const ErrorCode = z
  .enum([
    'HANDSHAKE_REQUIRED',
    'INSUFFICIENT_PERMISSIONS',
    'ROLLBACK_IN_PROGRESS',
    // Frame-level problems.
    'INVALID_MESSAGE',
    'MESSAGE_TOO_LARGE',
    'UNKNOWN_COMMAND',
    'INVALID_COMMAND',
    'HANDSHAKE_ALREADY_DONE',
    'HISTORY_SYNC_IN_PROGRESS',
    'RATE_LIMITED',
    // Command-level problems answered by the engine.
    'UNKNOWN_CODON',
    'CODON_RUNNING',
    'NO_CODON_RUNNING',
    'CODON_STOPPING',
    'MESSAGE_QUEUE_FULL',
    'NOTHING_TO_REDO',
    'NO_NEXT_CODON',
    'SHUTTING_DOWN',
    'CHECKPOINT_NOT_FOUND',
    'CHECKPOINT_AMBIGUOUS',
    'CHECKPOINT_FAILED',
    'CHECKPOINT_CORRUPT',
    'NO_SUCCESSFUL_CODON',
    'RIG_SETUP_FAILED',
    'NOT_SUPPORTED',
    'UNKNOWN_RUN',
    'CHECKPOINT_WARNING',
    'UNKNOWN_COMMENT',
    'NOTHING_TO_APPROVE',
    // Execution errors (journaled, broadcast).
    'CODON_FAILED',
    'CODON_TIMEOUT',
    'RUN_CRASHED',
    'INTERNAL_ERROR',
    // The execution directory's storage (docs/operations.md#faults-full-or-failing-disks).
    'STORAGE_FAILED',
    'STORAGE_WARNING',
    // Unattended runs (docs/unattended.md).
    'BUDGET_EXCEEDED',
    'APPROVAL_REQUIRED',
    'BUDGET_WARNING',
    'CODON_STALLED',
    'VERIFY_FAILED',
    'NOTIFY_FAILED',
    // Running on the user's own work (docs/getting-started.md#running-on-your-own-work).
    'OUTPUT_WARNING',
    'DATA_DIR_CHANGED',
  ])
  .meta({ id: 'ErrorCode' });
export type ErrorCode = z.infer<typeof ErrorCode>;

export const ErrorSeverity = z.enum(ERROR_SEVERITIES);
export type ErrorSeverity = z.infer<typeof ErrorSeverity>;

export { suggestedAction } from './value-names.ts';

/** The codes the spec itself defines (section 7); every other code is ours (docs/protocol.md#protocol-extensions). */
export const SPEC_ERROR_CODES: ReadonlySet<ErrorCode> = new Set([
  'HANDSHAKE_REQUIRED',
  'INSUFFICIENT_PERMISSIONS',
  'ROLLBACK_IN_PROGRESS',
]);

/** When each code is sent: the descriptions of the published contract (schema/asyncapi.yaml). */
export const errorCodeDescriptions: Record<ErrorCode, string> = {
  HANDSHAKE_REQUIRED: 'A command was sent before the handshake completed.',
  INSUFFICIENT_PERMISSIONS:
    'A readonly client sent a state-modifying command (whatever its payload: permission is checked first).',
  ROLLBACK_IN_PROGRESS: 'A state-modifying command was sent during a rollback.',
  INVALID_MESSAGE:
    'The frame is not a JSON object (not JSON, binary, invalid UTF-8) or has no string "type".',
  MESSAGE_TOO_LARGE: 'The frame is over limits.maxFrameBytes (1 MiB by default); the connection stays open.',
  UNKNOWN_COMMAND: 'The command "type" is not one the server knows; the message lists the known ones.',
  INVALID_COMMAND:
    'The command does not match its schema (a missing or over-long id, a field of the wrong type, ...); the message names each problem as `path: expected ..., got ...`.',
  HANDSHAKE_ALREADY_DONE: 'A second handshake on a connection; reconnect to change mode.',
  HISTORY_SYNC_IN_PROGRESS: "A history.sync while this client's previous one is still streaming.",
  RATE_LIMITED:
    'This client sent codon.message faster than limits.messageRate allows (after a burst of limits.messageBurst); the message was not sent.',
  UNKNOWN_CODON: 'No codon of the plan has that id.',
  CODON_RUNNING: 'The command needs no codon to be active, and one is.',
  NO_CODON_RUNNING:
    "codon.skip or codon.forceStop while no codon is active; codon.message while no codon's agent takes input (none runs, rig setup runs, or the agent finished).",
  MESSAGE_QUEUE_FULL:
    'codon.message while the running agent has not taken up limits.messageQueueMessages messages (or limits.messageQueueBytes of them) sent before; the message was not sent.',
  CODON_STOPPING: 'codon.skip or codon.forceStop while the active codon is already being stopped.',
  NOTHING_TO_REDO: 'codon.redo with no completed or failed codon to retry.',
  NO_NEXT_CODON: 'codon.next when every codon of the plan is done.',
  SHUTTING_DOWN: 'The server is shutting down and takes no new work.',
  CHECKPOINT_NOT_FOUND: 'No checkpoint matches the SHA, codon or checkpoint type asked for.',
  CHECKPOINT_AMBIGUOUS: 'The SHA prefix matches more than one checkpoint; give more digits.',
  CHECKPOINT_FAILED: 'A checkpoint could not be created, listed or restored (git failed).',
  CHECKPOINT_CORRUPT:
    "A restore (rollback, redo, a retry's or recovery's return to a checkpoint) found an object of the checkpoint missing or not matching its hash in the checkpoint store; nothing was restored and the agent root is as it was.",
  NO_SUCCESSFUL_CODON: 'rollback.toLastSuccess with no successfully completed codon to go back to.',
  RIG_SETUP_FAILED:
    "A codon's rig setup (its pre-commands) failed; the codon failed before its agent started.",
  NOT_SUPPORTED: 'The command is not available in this build or configuration.',
  UNKNOWN_RUN: 'checkpoint.list of a run id the execution directory does not hold.',
  CHECKPOINT_WARNING: "A codon's checkpoint was made, with a warning (e.g. files it could not add).",
  UNKNOWN_COMMENT:
    'review.submit named a comment id that is not a review.comment of that codon, or review.comment named lines its diff does not have.',
  NOTHING_TO_APPROVE:
    'approval.approve while no codon waits for approval, or naming another codon than the one that waits.',
  CODON_FAILED:
    "A codon failed, or was stopped (codon.forceStop, a sentinel's halt, rollback or redo, the shutdown); codon.completed failureReason says which.",
  CODON_TIMEOUT: 'A codon ran past its timeoutMs and was stopped.',
  RUN_CRASHED: 'The previous server was killed while a codon ran; a restarted server reports it.',
  INTERNAL_ERROR: 'A command failed unexpectedly; the message says how.',
  STORAGE_FAILED:
    'Fatal: a journal or state write failed (disk full, read-only or failing disk), or the database or checkpoint store was deleted or replaced under the server (context deleted or replaced); sent to every client, not journaled, and the server stops.',
  STORAGE_WARNING: 'A side file (archive manifest, rig directories) could not be written; the run goes on.',
  BUDGET_EXCEEDED:
    'A budget was exceeded: the codon stopped (severity codon), or a start past the budget was refused (operation).',
  APPROVAL_REQUIRED:
    'The run waits for a person to approve a codon (approval: required): approve it (approval.approve), request changes (review.submit to redo), or roll back. Sent for codon.next, or codon.start of another codon, while the run waits.',
  BUDGET_WARNING: 'A budget reached 80 % of a limit (sent once per scope and limit).',
  CODON_STALLED: 'The agent printed nothing for stallTimeoutMs and was stopped.',
  VERIFY_FAILED: "A codon's verification gate failed (after its feedback rounds, if any).",
  NOTIFY_FAILED: 'A webhook notification could not be delivered.',
  OUTPUT_WARNING:
    'An `outputFiles` glob matched no file, or a matching file could not be copied out (a warning).',
  DATA_DIR_CHANGED: 'The data directory changed during a codon (a shell command wrote there; a warning).',
};
