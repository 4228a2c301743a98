import type { ClientMode } from '../protocol/index.ts';

export type ConnectionState = 'connecting' | 'open' | 'reconnecting' | 'closed';

export type ReconnectOptions = { retries: number; minDelayMs: number; maxDelayMs: number };

export type ClientOptions = {
  mode: ClientMode;
  /** Ask for the current run's recent events in the handshake response. */
  sendPreviousEvents?: boolean;
  /** Reconnect (and handshake again) when the connection drops; off by default. */
  reconnect?: boolean | Partial<ReconnectOptions>;
  /** Bound on time to connect and complete the handshake. */
  connectTimeoutMs?: number;
  /** Origin header to send (browsers always send one; Node clients normally don't). */
  origin?: string;
  /**
   * The server's access token (`ribosome run --token`), sent as `Authorization: Bearer` on the upgrade
   * (Node). A dashboard page has no token: it presents a `ticket` instead.
   */
  token?: string;
  /**
   * A dashboard page's credential, asked again at each (re)connection: the ticket its dashboard
   * got for it (docs/dashboard.md#access-token), offered as a WebSocket subprotocol.
   */
  ticket?: () => Promise<string>;
  /** How many received events to keep in `received` (oldest dropped; `history.batch` frames are never kept). */
  keepEvents?: number;
};

/** Reconnect forever, backing off from 200 ms to 5 s. */
const DEFAULT_RECONNECT: ReconnectOptions = {
  retries: Number.POSITIVE_INFINITY,
  minDelayMs: 200,
  maxDelayMs: 5_000,
};

/** The reconnect options `reconnect` asks for, defaults filled in; undefined when it asks for none. */
export function reconnectOptionsOf(reconnect: ClientOptions['reconnect']): ReconnectOptions | undefined {
  if (!reconnect) return undefined;
  return reconnect === true ? DEFAULT_RECONNECT : { ...DEFAULT_RECONNECT, ...reconnect };
}
