import type { ServerEvent } from '../protocol/index.ts';

/** A frame or an event read as a server event, or why it is none (a message a person can act on). */
export type ParsedEvent = { ok: true; event: ServerEvent } | { ok: false; error: string };

/**
 * How a client checks what the server sends: each frame, and each event of a history.batch. A port,
 * so the browser's bundle carries no zod: RibosomeClient (Node) validates with the protocol's schemas
 * (parse-frame.ts), BrowserClient checks the envelope by hand (envelope-frame.ts).
 */
export interface FrameParser {
  frame(raw: unknown): ParsedEvent;
  event(raw: unknown): ParsedEvent;
}
