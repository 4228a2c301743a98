import { z } from 'zod';
import { ApprovalApproveRequest } from './approval.ts';
import { CheckpointDiffRequest } from './checkpoint-diff.ts';
import { CodonMessageRequest } from './codon-message.ts';
import { DashboardTicketRequest } from './dashboard-ticket.ts';
import { ReviewCommentRequest, ReviewSubmitRequest } from './review.ts';
import { ClientMode } from './shared.ts';

/** Client commands (spec 2.1, 2.2, 4.2). Every inbound frame is parsed with these before anything acts. */

/** Longer ids are refused: every answer repeats the id, so it must stay small. */
export const MAX_COMMAND_ID_LENGTH = 256;
const CommandId = z
  .string()
  .min(1, 'id must be a non-empty string')
  .max(MAX_COMMAND_ID_LENGTH, `id must be at most ${MAX_COMMAND_ID_LENGTH} characters`);
const NoData = z.object({}).optional();

function command<T extends string, D extends z.ZodType>(type: T, data: D) {
  return z.object({ id: CommandId, type: z.literal(type), data });
}

export const HandshakeRequest = z.object({
  // The handshake alone may omit its id (spec 2.1).
  id: CommandId.optional(),
  type: z.literal('handshake'),
  data: z.object({
    mode: ClientMode,
    sendPreviousEvents: z.boolean().default(false),
  }),
});
export type HandshakeRequest = z.infer<typeof HandshakeRequest>;

const AutoRestart = z.boolean().default(false);

export const CodonStart = command(
  'codon.start',
  z.object({ codonId: z.string().min(1), skipPreCommands: z.boolean().default(false) }),
);
export const CodonNext = command('codon.next', NoData);
export const CodonSkip = command('codon.skip', NoData);
export const CodonRedo = command('codon.redo', NoData);
export const CodonForceStop = command(
  'codon.forceStop',
  z.object({ reason: z.string().default('stopped by a client') }).default({ reason: 'stopped by a client' }),
);
/** Ours: a message to the running codon's agent (docs/steering.md). */
export const CodonMessage = command('codon.message', CodonMessageRequest);
/** Ours: a comment on lines of a codon's diff, and a review sending comments on (docs/review.md). */
export const ReviewCommentCommand = command('review.comment', ReviewCommentRequest);
export const ReviewSubmitCommand = command('review.submit', ReviewSubmitRequest);
export const CheckpointList = command(
  'checkpoint.list',
  // runId absent = the current run.
  z.object({ runId: z.string().min(1).optional() }).default({}),
);
/** Ours: the changes between two checkpoints (docs/protocol.md#protocol-extensions). */
export const CheckpointDiff = command('checkpoint.diff', CheckpointDiffRequest);
export const RollbackToCheckpoint = command(
  'rollback.toCheckpoint',
  z.object({
    checkpointSha: z.string().regex(/^[0-9a-fA-F]{4,64}$/, 'a git SHA (4-64 hex digits)'),
    autoRestart: AutoRestart,
  }),
);
export const RollbackCheckpointType = z.enum(['rig-setup', 'completed', 'error', 'skipped', 'start', 'end']);
export const RollbackToCodon = command(
  'rollback.toCodon',
  z.object({ codonId: z.string().min(1), checkpointType: RollbackCheckpointType, autoRestart: AutoRestart }),
);
export const RollbackToLastSuccess = command(
  'rollback.toLastSuccess',
  z.object({ autoRestart: AutoRestart }).default({ autoRestart: false }),
);
export const ServerShutdown = command(
  'server.shutdown',
  z
    .object({ reason: z.string().default('requested by a client') })
    .default({ reason: 'requested by a client' }),
);
/** Ours: a dashboard page's upgrade credential, for `ribosome web` (docs/dashboard.md#access-token). */
export const DashboardTicket = command('dashboard.ticket', DashboardTicketRequest);
/** Ours: approves the codon the run waits on (docs/review.md#approval-gates). */
export const ApprovalApprove = command('approval.approve', ApprovalApproveRequest);
export const Ping = command('ping', NoData);
export const PingBroadcast = command('ping.broadcast', NoData);
export const HistorySync = command('history.sync', NoData);

export const ClientCommand = z.discriminatedUnion('type', [
  CodonStart,
  CodonNext,
  CodonSkip,
  CodonRedo,
  CodonForceStop,
  CodonMessage,
  ReviewCommentCommand,
  ReviewSubmitCommand,
  CheckpointList,
  CheckpointDiff,
  RollbackToCheckpoint,
  RollbackToCodon,
  RollbackToLastSuccess,
  ServerShutdown,
  DashboardTicket,
  ApprovalApprove,
  Ping,
  PingBroadcast,
  HistorySync,
]);
export type ClientCommand = z.infer<typeof ClientCommand>;
export type CommandType = ClientCommand['type'];
export type CommandOf<T extends CommandType> = Extract<ClientCommand, { type: T }>;
/** The `data` a caller passes when sending a command (defaults may be left out). */
export type CommandInput<T extends CommandType> = z.input<(typeof commandSchemas)[T]>['data'];

export const commandSchemas = {
  'codon.start': CodonStart,
  'codon.next': CodonNext,
  'codon.skip': CodonSkip,
  'codon.redo': CodonRedo,
  'codon.forceStop': CodonForceStop,
  'codon.message': CodonMessage,
  'review.comment': ReviewCommentCommand,
  'review.submit': ReviewSubmitCommand,
  'checkpoint.list': CheckpointList,
  'checkpoint.diff': CheckpointDiff,
  'rollback.toCheckpoint': RollbackToCheckpoint,
  'rollback.toCodon': RollbackToCodon,
  'rollback.toLastSuccess': RollbackToLastSuccess,
  'server.shutdown': ServerShutdown,
  'dashboard.ticket': DashboardTicket,
  'approval.approve': ApprovalApprove,
  ping: Ping,
  'ping.broadcast': PingBroadcast,
  'history.sync': HistorySync,
} as const satisfies Record<CommandType, z.ZodType>;

export const COMMAND_TYPES = Object.keys(commandSchemas) as CommandType[];

/**
 * Commands a readonly client may send (spec 4.2, and our checkpoint.diff and dashboard.ticket, which
 * the server limits itself); every other command modifies state.
 */
export const READONLY_COMMANDS: ReadonlySet<CommandType> = new Set([
  'checkpoint.list',
  'checkpoint.diff',
  'dashboard.ticket',
  'history.sync',
  'ping',
  'ping.broadcast',
  'server.shutdown',
]);

export function isStateModifying(type: CommandType): boolean {
  return !READONLY_COMMANDS.has(type);
}
