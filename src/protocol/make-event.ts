import { randomUUID } from 'node:crypto';
import type { EventData, EventType, ServerEventOf } from './events.ts';

/** Wraps a payload in the ServerEvent envelope (spec 2.3). */
export function makeEvent<T extends EventType>(type: T, data: EventData<T>): ServerEventOf<T> {
  return { id: randomUUID(), timestamp: new Date().toISOString(), type, data };
}
