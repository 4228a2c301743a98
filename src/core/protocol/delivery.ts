import { EVENT_TYPES, type EventType, eventCategory } from './events.ts';

/**
 * How each event reaches clients, stated once: the event bus journals only what is `journaled`, the
 * AsyncAPI document says it, and an e2e test checks it against what a real server sends. An event
 * may travel more than one way (an `error` about a codon is journaled; one answering a command is not).
 */
export type DeliveryWay = {
  /** `everyone`: every handshaken client; `asker`: only the client whose command (or connection) it answers. */
  to: 'everyone' | 'asker';
  /** Written to the journal first (then in history.sync and `journal export`). */
  journaled: boolean;
  /** When this way is taken, if the event has more than one. */
  when?: string;
};

const JOURNALED: readonly DeliveryWay[] = [{ to: 'everyone', journaled: true }];
const TO_ASKER: readonly DeliveryWay[] = [{ to: 'asker', journaled: false }];

const SPECIAL: Partial<Record<EventType, readonly DeliveryWay[]>> = {
  'checkpoint.list': [{ to: 'asker', journaled: false, when: 'answering checkpoint.list' }],
  'checkpoint.diff': [{ to: 'asker', journaled: false, when: 'answering checkpoint.diff' }],
  'dashboard.ticket': [{ to: 'asker', journaled: false, when: 'answering dashboard.ticket' }],
  error: [
    { to: 'everyone', journaled: true, when: 'about the run (a codon, a sentinel, the engine)' },
    { to: 'asker', journaled: false, when: 'answering a command (it carries data.commandId)' },
    {
      to: 'everyone',
      journaled: false,
      when: 'STORAGE_FAILED (the journal can no longer be written)',
    },
  ],
  pong: [
    { to: 'asker', journaled: false, when: 'answering ping' },
    { to: 'everyone', journaled: false, when: 'answering ping.broadcast (it carries data.clientId)' },
  ],
};

export const eventDelivery: Record<EventType, readonly DeliveryWay[]> = Object.fromEntries(
  EVENT_TYPES.map((type) => [
    type,
    SPECIAL[type] ?? (eventCategory[type] === 'connection' ? TO_ASKER : JOURNALED),
  ]),
) as Record<EventType, readonly DeliveryWay[]>;

/** Journaled events go to the durable journal before any client sees them (spec 6). */
export function isJournaled(type: EventType): boolean {
  return eventDelivery[type].some((way) => way.journaled);
}

/** How an event travels, in words: "journaled, then sent to every handshaken client". */
export function describeDelivery(type: EventType): string {
  const ways = eventDelivery[type].map((way) => {
    const to =
      way.to === 'everyone' ? 'sent to every handshaken client' : 'sent only to the client it answers';
    const how = way.journaled ? `journaled, then ${to}` : `${to}, not journaled`;
    return way.when ? `${way.when}: ${how}` : how;
  });
  return ways.join('; ');
}
