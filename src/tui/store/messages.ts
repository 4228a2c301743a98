import type { EventData, MessageSender } from '../../protocol/index.ts';

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

/** `you → agent: text`, `sentinel loop → agent: text (a new turn)`. */
export function messageLine(data: EventData<'codon.message'>, ownClientIds?: readonly string[]): string {
  return `${senderLabel(data.from, ownClientIds)} → agent: ${data.text}${DELIVERY_NOTE[data.delivery]}`;
}
