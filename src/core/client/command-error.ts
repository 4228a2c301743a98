import type { ServerEventOf } from '../protocol/index.ts';

/** A command the server refused: the `error` event that answered it, its code and message. */
export class CommandError extends Error {
  readonly code: string | undefined;
  readonly event: ServerEventOf<'error'>;
  constructor(event: ServerEventOf<'error'>) {
    super(event.data.code ? `${event.data.code}: ${event.data.message}` : event.data.message);
    this.code = event.data.code;
    this.event = event;
  }
}
