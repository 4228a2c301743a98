import type { ServerEvent } from '../protocol/index.ts';
import type { ConnectionState } from './connection-options.ts';

/** The part of the client an event iterator listens to. */
export interface EventFeed {
  readonly state: ConnectionState;
  onEvent(listener: (event: ServerEvent) => void): () => void;
  onStateChange(listener: (state: ConnectionState) => void): () => void;
}

/** Every event from now on, as an async iterator (ends when the client closes). */
export async function* eventsOf(source: EventFeed): AsyncGenerator<ServerEvent> {
  const queue: ServerEvent[] = [];
  let wake: (() => void) | undefined;
  const offEvent = source.onEvent((e) => {
    queue.push(e);
    wake?.();
  });
  const offState = source.onStateChange((s) => {
    if (s === 'closed') wake?.();
  });
  try {
    for (;;) {
      const event = queue.shift();
      if (event) {
        yield event;
        continue;
      }
      if (source.state === 'closed') return;
      await new Promise<void>((resolve) => {
        wake = resolve;
      });
      wake = undefined;
    }
  } finally {
    offEvent();
    offState();
  }
}
