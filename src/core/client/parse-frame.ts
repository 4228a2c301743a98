import { parseServerEvent, type ServerEventOf } from '../protocol/index.ts';

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** The envelope of a server event (ServerEventEnvelope), checked by hand. */
const isEnvelope = (v: unknown): boolean =>
  isObject(v) &&
  typeof v.id === 'string' &&
  typeof v.timestamp === 'string' &&
  typeof v.type === 'string' &&
  isObject(v.data);

/**
 * A frame as a server event. A history.batch carries up to a thousand events, each checked against
 * its own schema where it is used (streamHistory); checking the batch with zod first copied every
 * one of them on the way (a third of a million-event sync's parsing, and its garbage). So its shape
 * is checked by hand, to the same rules; anything else, or a batch that fails, goes through the schemas.
 */
export function parseFrame(raw: unknown): ReturnType<typeof parseServerEvent> {
  if (
    isObject(raw) &&
    raw.type === 'history.batch' &&
    typeof raw.id === 'string' &&
    typeof raw.timestamp === 'string' &&
    isObject(raw.data) &&
    typeof raw.data.hasMore === 'boolean' &&
    Array.isArray(raw.data.events) &&
    raw.data.events.every(isEnvelope)
  )
    return { ok: true, event: raw as ServerEventOf<'history.batch'> };
  return parseServerEvent(raw);
}
