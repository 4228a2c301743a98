import type { EventData, MessageSender } from '../../../core/protocol/index.ts';
import { MESSAGE_MAX_BYTES } from '../../../core/protocol/message-size.ts';
import { oneLine, shortClientId } from '../format.ts';

/**
 * Whose words a view speaks in: a UI's (its own clients' ids: their messages are "you"), or the
 * record's (`ribosome log`, the console view), which is no client: every client by its id.
 */
export type Reader = readonly string[] | 'record';

/**
 * Who sent a codon.message, in every view's words: a sentinel by its id; "you" for the reader's own
 * message; `client ee65aa1d` for another (in the record, every client's).
 */
export function senderLabel(from: MessageSender, reader: Reader = []): string {
  if (from.kind === 'sentinel') return `sentinel ${from.sentinelId}`;
  const client = `client ${shortClientId(from.clientId)}`;
  if (reader === 'record') return client;
  return reader.includes(from.clientId) ? 'you' : client;
}

/** Whether this UI's client sent the message (its own send, answered). */
export function isOwnMessage(from: MessageSender, ownClientIds: readonly string[] = []): boolean {
  return from.kind === 'client' && ownClientIds.includes(from.clientId);
}

/**
 * How a message reached the agent, in a status line: "live", "a new turn", "in its next run's prompt" (a
 * redo's text, or a message a crash carried over: `ribosome log` tells the two apart).
 */
const DELIVERY_WORDS: Record<EventData<'codon.message'>['delivery'], string> = {
  live: 'live',
  'next-turn': 'a new turn',
  prompt: "in its next run's prompt",
};

/** The status line once a message of ours reached the agent: `message sent to two's agent (live)`. */
export function messageSentLine(data: EventData<'codon.message'>): string {
  return `message sent to ${data.codonId}'s agent (${DELIVERY_WORDS[data.delivery]})`;
}

const DELIVERY_NOTE: Record<EventData<'codon.message'>['delivery'], string> = {
  live: '',
  'next-turn': ' (a new turn)',
  prompt: " (in its next run's prompt)",
};

/**
 * `you → agent: text`, `sentinel loop → agent: text (a new turn)`: on one line, without control
 * characters (any client or a sentinel's output writes the text; it is drawn in other people's
 * terminals), whole up to the largest message (32 KiB).
 */
export function messageLine(data: EventData<'codon.message'>, reader?: Reader): string {
  const text = oneLine(data.text, MESSAGE_MAX_BYTES);
  return `${senderLabel(data.from, reader)} → agent: ${text}${DELIVERY_NOTE[data.delivery]}`;
}
