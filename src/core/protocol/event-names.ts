import type { EventType } from './events.ts';

/**
 * Every server event's type, without its schema: what the browser client (src/core/client/envelope-frame.ts)
 * knows of the protocol, as it bundles no zod. A type added to events.ts but not here fails
 * `tsc` below (and the other way round): add it to this list too.
 */
export const EVENT_NAMES = [
  'server.idle',
  'codon.started',
  'codon.completed',
  'state.snapshot',
  'token.usage',
  'info',
  'error',
  'checkpoint.list',
  'checkpoint.diff',
  'state.transition',
  'rollback.started',
  'rollback.progress',
  'rollback.codonCheckpoint',
  'rollback.rigCleanup',
  'rollback.completed',
  'rollback.archiveRestore',
  'archive.completed',
  'archive.partial',
  'outputs.copied',
  'verify.started',
  'verify.output',
  'verify.completed',
  'sandbox.denied',
  'usageLimit.waiting',
  'usageLimit.ended',
  'review.comment',
  'review.sent',
  'approval.waiting',
  'approval.ended',
  'assistant.action',
  'tool.result',
  'file.updated',
  'filetree.updated',
  'codon.message',
  'sentinel.loaded',
  'sentinel.unloaded',
  'sentinel.output',
  'sentinel.error',
  'sentinel.action',
  'sentinel.triggered',
  'handshake.response',
  'server.ready',
  'pong',
  'history.batch',
  'dashboard.ticket',
  'incomplete.codon',
] as const;

type Listed = (typeof EVENT_NAMES)[number];
type Complete<T extends { missingHere: never; notAnEvent: never }> = T;
/** Compiles only while this list and events.ts name the same types; the error names any other. */
export type EventNamesMatch = Complete<{
  missingHere: Exclude<EventType, Listed>;
  notAnEvent: Exclude<Listed, EventType>;
}>;

const NAMES: ReadonlySet<string> = new Set(EVENT_NAMES);

export function isEventName(type: string): type is EventType {
  return NAMES.has(type);
}
