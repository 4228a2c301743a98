import type { DatabaseSync } from 'node:sqlite';
import type { Logger } from 'pino';
import type { MessageSender, ReviewLines, ReviewSide } from '../core/protocol/index.ts';
import type { EventBus } from '../execution/journal/event-bus.ts';
import type { SqliteJournal } from '../execution/journal/sqlite-journal.ts';
import type { ExecutionLayout } from '../execution/layout/layout.ts';
import type { ServerSettings } from '../plan/config/server-config.ts';
import type { StorageGuard } from '../platform/storage/guard.ts';

/**
 * What the engine needs from outside it, in one place: what the host gives it to run on (EngineDeps),
 * and the interface through which sentinel actions reach it (ActionEngine, SendMessage). The hooks
 * a codon's life calls out to are CodonHooks (codon-hooks.ts). The engine imports nothing from the
 * host; the host builds these and hands them in.
 */

/** What the host gives the engine: the execution's files, journal, bus, log and settings. */
export type EngineDeps = {
  layout: ExecutionLayout;
  db: DatabaseSync;
  bus: EventBus;
  journal: SqliteJournal;
  logger: Logger;
  settings: ServerSettings;
  dataDir: string;
  /** Every durable write (journal, state) goes through it; its first failure stops the server. */
  storage: StorageGuard;
  /** Stops the server as a shutdown would (the engine's onFailure then: abort). */
  requestStop?: (reason: string) => void;
};

/** How an action the engine refused reads: why, in words a person can act on. */
export type ActionResult = { ok: true } | { ok: false; message: string };

/** Who sends a message: this sentinel (the `from` of codon.message). */
export type SentinelSender = Extract<MessageSender, { kind: 'sentinel' }>;
/** What sending a message answers: ok, or why not (NO_CODON_RUNNING when no agent takes input). */
export type MessageOutcome = { ok: true } | { ok: false; code: string; message: string };
/** Orchestrator.sendMessage as a sentinel sees it (injected: the engine delivers the text). */
export type SendMessage = (text: string, from: SentinelSender) => MessageOutcome | Promise<MessageOutcome>;

/**
 * The engine's stop and rollback paths, as sentinel actions call them. Each answers at once whether
 * it took the action (the codon is still running, no rollback is under way); what it does after
 * that (the codon's end, the rollback, the new run) goes on without the sentinel waiting for it, and
 * a later failure is handed to `failed`. `why` names the sentinel and its output (the failureReason).
 */
export interface ActionEngine {
  halt(codonId: string, why: string): ActionResult;
  rollback(codonId: string, why: string, failed: (message: string) => void): ActionResult;
  redo(
    codonId: string,
    why: string,
    text: string | undefined,
    failed: (message: string) => void,
    from: SentinelSender,
  ): ActionResult;
  /**
   * A review comment on the codon's diff (docs/review.md), from its start to its end checkpoint: a
   * running codon is commented on once its end is recorded. Taken at once; a comment its diff
   * refuses (lines it does not have) is handed to `failed`.
   */
  comment(
    codonId: string,
    comment: SentinelComment,
    from: SentinelSender,
    failed: (message: string) => void,
  ): ActionResult;
}

/** What a sentinel's comment says, and where. */
export type SentinelComment = { file: string; lines: ReviewLines; side: ReviewSide; text: string };
