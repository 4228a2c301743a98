import type { EventType, ServerEvent, ServerEventOf } from '../protocol/index.ts';
import { CommandError } from './command-error.ts';
import type { ConnectionState } from './connection-options.ts';
import type { ParsedEvent } from './frame-parser.ts';

/** What a history stream needs of the client: its events, its state, the sync command, its frame log. */
export interface HistoryConnection {
  on<T extends EventType>(type: T, listener: (event: ServerEventOf<T>) => void): () => void;
  onStateChange(listener: (state: ConnectionState) => void): () => void;
  /** Sends history.sync; returns the command's id. */
  sendSync(): string;
  /** When the last frame arrived (Date.now()): the idle timer measures the connection's silence. */
  lastFrameAt(): number;
  /** Checks an event of a batch (the client's FrameParser). */
  parseEvent(raw: unknown): ParsedEvent;
  /** Notes an event of a batch that failed validation. */
  invalid(why: string): void;
}

/**
 * Streams the whole journal with history.sync, handing each history.batch's events to `onBatch`
 * as it arrives and keeping none of them: a client folds a million-event journal batch by batch.
 * Resolves with the number of events once `hasMore` is false. `timeoutMs` bounds the whole sync,
 * or with `idle` (the default) the silence of the connection: it fails only once nothing at all
 * (no batch, no live event) arrived for that long. A busy server sends live events and batches in
 * turn, so a sync under live traffic is slower, never failed. A refusal rejects with a CommandError;
 * so does a throw from `onBatch` (with that error); a connection that closes rejects at once.
 */
export function streamHistory(
  connection: HistoryConnection,
  onBatch: (events: ServerEvent[]) => void,
  options: { timeoutMs?: number; idle?: boolean } = {},
): Promise<number> {
  const timeoutMs = options.timeoutMs ?? 60_000;
  const idle = options.idle ?? true;
  let commandId = '';
  let count = 0;
  const done = new Promise<number>((resolve, reject) => {
    let timer: ReturnType<typeof setTimeout>;
    const fail = (error: unknown) => {
      off();
      reject(error);
    };
    // One timer, not one per frame: when it fires it looks at when the last frame came.
    const arm = (ms: number) => {
      timer = setTimeout(() => {
        const quietMs = Date.now() - connection.lastFrameAt();
        if (idle && quietMs < timeoutMs) return arm(timeoutMs - quietMs);
        fail(
          new Error(
            idle
              ? `history.sync: nothing arrived within ${timeoutMs} ms`
              : `history.sync did not finish within ${timeoutMs} ms`,
          ),
        );
      }, ms);
    };
    const off = () => {
      clearTimeout(timer);
      offBatch();
      offError();
      offState();
    };
    arm(timeoutMs);
    const offState = connection.onStateChange((state) => {
      if (state !== 'open') fail(new Error(`history.sync interrupted: the connection is ${state}`));
    });
    const offError = connection.on('error', (error) => {
      if (error.data.commandId !== commandId) return;
      fail(new CommandError(error));
    });
    const offBatch = connection.on('history.batch', (batch) => {
      const events: ServerEvent[] = [];
      for (const raw of batch.data.events) {
        const parsed = connection.parseEvent(raw);
        if (parsed.ok) events.push(parsed.event);
        else connection.invalid(parsed.error);
      }
      count += events.length;
      try {
        onBatch(events);
      } catch (error) {
        fail(error);
        return;
      }
      if (!batch.data.hasMore) {
        off();
        resolve(count);
      }
    });
  });
  commandId = connection.sendSync();
  return done;
}
