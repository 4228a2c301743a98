import type { ConnectionState } from '../../core/client/index.ts';
import type {
  ClientMode,
  CommandInput,
  CommandType,
  EventData,
  ServerEvent,
} from '../../core/protocol/index.ts';

/**
 * The part of the typed client the UIs use (the terminal UI, the dashboard). `RibosomeClient` and
 * `BrowserClient` are ones; tests pass a fake. Keeping it this small is what lets every pane be tested
 * without a server.
 */
export interface ClientPort {
  readonly url: string;
  /** The mode the server granted in the handshake. */
  readonly mode: ClientMode;
  readonly state: ConnectionState;
  /** This connection's id (handshake.response), when connected: the UI's own messages say "you". */
  readonly clientId?: string;
  readonly serverInfo: EventData<'server.ready'>;
  send<T extends CommandType>(type: T, data?: CommandInput<T>): string;
  onEvent(listener: (event: ServerEvent) => void): () => void;
  onStateChange(listener: (state: ConnectionState) => void): () => void;
  /** history.sync, batch by batch (ClientCore.streamHistory). */
  streamHistory(
    onBatch: (events: ServerEvent[]) => void,
    options?: { timeoutMs?: number; idle?: boolean },
  ): Promise<number>;
  close(): Promise<void>;
}
