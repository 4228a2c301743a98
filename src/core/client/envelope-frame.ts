import { isEventName } from '../protocol/event-names.ts';
import type { ServerEvent } from '../protocol/index.ts';
import type { FrameParser, ParsedEvent } from './frame-parser.ts';

export const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** The envelope of a server event (ServerEventEnvelope), checked by hand. */
export const isEnvelope = (v: unknown): boolean =>
  isObject(v) &&
  typeof v.id === 'string' &&
  typeof v.timestamp === 'string' &&
  typeof v.type === 'string' &&
  isObject(v.data);

const kindOf = (v: unknown): string => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v);

/**
 * A server event as the browser takes it: the envelope (id, timestamp, a known type, data an
 * object) checked by hand, the data trusted. The page is served by the server it talks to, of the
 * same version, so the protocol's schemas (zod, most of the bundle) would only check the server
 * against itself; Node clients, which may meet any server, keep them (parse-frame.ts).
 */
export function parseEnvelope(raw: unknown): ParsedEvent {
  if (!isObject(raw))
    return { ok: false, error: `not a server event: a frame must be an object, not ${kindOf(raw)}` };
  for (const field of ['id', 'timestamp', 'type'] as const)
    if (typeof raw[field] !== 'string')
      return {
        ok: false,
        error: `not a server event: its ${field} must be a string, not ${kindOf(raw[field])}`,
      };
  const type = raw.type as string;
  if (!isEventName(type)) return { ok: false, error: `unknown event type "${type}"` };
  if (!isObject(raw.data))
    return { ok: false, error: `${type}: its data must be an object, not ${kindOf(raw.data)}` };
  return { ok: true, event: raw as ServerEvent };
}

/** The envelope, and for a history.batch its own fields (its events are checked one by one as they are folded). */
function parseBrowserFrame(raw: unknown): ParsedEvent {
  const parsed = parseEnvelope(raw);
  if (!parsed.ok || parsed.event.type !== 'history.batch') return parsed;
  const data = parsed.event.data as Record<string, unknown>;
  if (typeof data.hasMore !== 'boolean' || !Array.isArray(data.events))
    return {
      ok: false,
      error: 'history.batch: its data must hold events (an array) and hasMore (a boolean)',
    };
  return parsed;
}

/** The browser client's frames (BrowserClient): no zod. */
export const envelopeFrames: FrameParser = { frame: parseBrowserFrame, event: parseEnvelope };
