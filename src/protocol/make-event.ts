import type { EventData, EventType, ServerEventOf } from './events.ts';

/** Wraps a payload in the ServerEvent envelope (spec 2.3). The global crypto keeps it browser-safe. */
export function makeEvent<T extends EventType>(type: T, data: EventData<T>): ServerEventOf<T> {
  return { id: globalThis.crypto.randomUUID(), timestamp: new Date().toISOString(), type, data };
}
