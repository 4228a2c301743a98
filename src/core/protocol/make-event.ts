import type { EventData, EventType, ServerEventOf } from './events.ts';

/**
 * Wraps a payload in the ServerEvent envelope (spec 2.3). The global crypto keeps it browser-safe;
 * the journal gives ids of its own (time-ordered, src/execution/journal/event-id.ts).
 */
export function makeEvent<T extends EventType>(
  type: T,
  data: EventData<T>,
  id: string = globalThis.crypto.randomUUID(),
): ServerEventOf<T> {
  return { id, timestamp: new Date().toISOString(), type, data };
}
