import { type EventData, MESSAGE_MAX_BYTES, type MessageSender } from '../../protocol/index.ts';
import { oneLine } from '../format.ts';

/** Who sent a codon.message, as activity lists show it: you (this UI's client), another client, a sentinel. */
export function senderLabel(from: MessageSender, ownClientIds: readonly string[] = []): string {
  if (from.kind === 'sentinel') return `sentinel ${from.sentinelId}`;
  return ownClientIds.includes(from.clientId) ? 'you' : `client ${from.clientId}`;
}

const DELIVERY_NOTE: Record<EventData<'codon.message'>['delivery'], string> = {
  live: '',
  'next-turn': ' (a new turn)',
  prompt: " (with the redo's prompt)",
};

/**
 * `you → agent: text`, `sentinel loop → agent: text (a new turn)`: on one line, without control
 * characters (any client or a sentinel's output writes the text; it is drawn in other people's
 * terminals), whole up to the largest message (32 KiB).
 */
export function messageLine(data: EventData<'codon.message'>, ownClientIds?: readonly string[]): string {
  const text = oneLine(data.text, MESSAGE_MAX_BYTES);
  return `${senderLabel(data.from, ownClientIds)} → agent: ${text}${DELIVERY_NOTE[data.delivery]}`;
}
