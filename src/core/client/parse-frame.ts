import { parseServerEvent, type ServerEventOf } from '../protocol/index.ts';
import { isEnvelope, isObject } from './envelope-frame.ts';
import type { FrameParser, ParsedEvent } from './frame-parser.ts';

/**
 * A frame as a server event. A history.batch carries up to a thousand events, each checked against
 * its own schema where it is used (streamHistory); checking the batch with zod first copied every
 * one of them on the way (a third of a million-event sync's parsing, and its garbage). So its shape
 * is checked by hand, to the same rules; anything else, or a batch that fails, goes through the schemas.
 */
export function parseFrame(raw: unknown): ParsedEvent {
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

/** The Node clients' frames: every event checked against its own schema. */
export const schemaFrames: FrameParser = { frame: parseFrame, event: parseServerEvent };
