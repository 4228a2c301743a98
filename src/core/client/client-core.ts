import type {
  ClientMode,
  CommandInput,
  CommandType,
  EventData,
  EventType,
  ServerEvent,
  ServerEventOf,
} from '../protocol/index.ts';
import { CommandError } from './command-error.ts';
import { type ClientOptions, type ConnectionState, reconnectOptionsOf } from './connection-options.ts';
import { eventsOf } from './event-iterator.ts';
import type { FrameParser } from './frame-parser.ts';
import { type HistoryConnection, streamHistory } from './history-stream.ts';
import { newCommandId, type OpenSocket, type SocketPort } from './socket.ts';

// The typed client's public API (src/core/client/index.ts, the package's `ribosome/client`).
export { CommandError } from './command-error.ts';
export type { ClientOptions, ConnectionState, ReconnectOptions } from './connection-options.ts';

type Listener = (event: ServerEvent) => void;
type Waiter = { match: (e: ServerEvent) => boolean; resolve: (e: ServerEvent) => void };

/** How many invalid frames `invalidFrames` keeps (the latest), and how much of each it says. */
export const INVALID_FRAMES_KEPT = 100;
const INVALID_FRAME_CHARS = 1_000;

/**
 * The typed client of the control protocol: connects, handshakes, sends commands with generated
 * ids and hands out validated events as callbacks, async iterators or awaited matches. The TUI,
 * the web dashboard, the tests and users all drive the server through it. The socket and the frame
 * check are ports: RibosomeClient (Node, `ws`, the protocol's schemas) and BrowserClient (the global
 * WebSocket, the envelope checked by hand) give it theirs.
 */
export class ClientCore {
  readonly url: string;
  readonly #options: ClientOptions;
  readonly #openSocket: OpenSocket;
  readonly #frames: FrameParser;
  readonly #listeners = new Set<Listener>();
  readonly #stateListeners = new Set<(state: ConnectionState) => void>();
  readonly #waiters = new Set<Waiter>();
  readonly #received: ServerEvent[] = [];
  #socket: SocketPort | undefined;
  #state: ConnectionState = 'connecting';
  #closedByUser = false;
  #handshake: EventData<'handshake.response'> | undefined;
  #ready: EventData<'server.ready'> | undefined;
  /** When the last frame arrived (Date.now()): a sync's idle timer measures the connection's silence. */
  #lastFrameAt = Date.now();
  /**
   * Why the latest frames that failed validation failed, for diagnosis: the last
   * `INVALID_FRAMES_KEPT` (oldest dropped), so a server that sends nothing valid cannot grow it
   * without end. `invalidFrameCount` counts them all.
   */
  readonly invalidFrames: string[] = [];
  #invalidFrameCount = 0;

  protected constructor(url: string, options: ClientOptions, openSocket: OpenSocket, frames: FrameParser) {
    this.url = url;
    this.#options = options;
    this.#openSocket = openSocket;
    this.#frames = frames;
  }

  /** Connects and handshakes (the subclasses' `connect` calls it). */
  protected async start(): Promise<void> {
    await this.#open();
  }

  /** The open socket, for subclasses that offer more of it. */
  protected get socket(): SocketPort | undefined {
    return this.#socket;
  }

  get clientId(): string {
    return this.#require(this.#handshake).clientId;
  }
  get mode(): ClientMode {
    return this.#require(this.#handshake).mode;
  }
  get handshake(): EventData<'handshake.response'> {
    return this.#require(this.#handshake);
  }
  get serverInfo(): EventData<'server.ready'> {
    return this.#require(this.#ready);
  }
  get state(): ConnectionState {
    return this.#state;
  }
  /** Events received so far (bounded by `keepEvents`). */
  get received(): readonly ServerEvent[] {
    return this.#received;
  }

  /** Sends a command; returns its id. */
  send<T extends CommandType>(
    type: T,
    ...data: undefined extends CommandInput<T> ? [CommandInput<T>?] : [CommandInput<T>]
  ): string {
    const id = newCommandId();
    const socket = this.#socket;
    if (!socket?.isOpen) throw new Error(`not connected (state ${this.#state})`);
    socket.send(JSON.stringify(data[0] === undefined ? { id, type } : { id, type, data: data[0] }));
    return id;
  }

  /**
   * Sends a command and waits for the event that answers it. An `error` carrying this command's id
   * rejects with a CommandError.
   */
  async request<T extends EventType, C extends CommandType>(
    type: C,
    data: CommandInput<C> | undefined,
    expect: T,
    options: { timeoutMs?: number; match?: (e: ServerEventOf<T>) => boolean } = {},
  ): Promise<ServerEventOf<T>> {
    let commandId = '';
    const answer = this.waitFor(
      (e) =>
        (e.type === 'error' && e.data.commandId === commandId) ||
        (e.type === expect && (options.match?.(e as ServerEventOf<T>) ?? true)),
      options.timeoutMs ?? 10_000,
      `${expect} after ${type}`,
    );
    commandId = (this.send as (t: C, d?: CommandInput<C>) => string)(type, data);
    const event = await answer;
    if (event.type === 'error' && event.data.commandId === commandId) throw new CommandError(event);
    return event as ServerEventOf<T>;
  }

  /**
   * codon.message: hands `text` to the running codon's agent. Resolves with the journaled
   * `codon.message` it became (its `delivery` says how the agent got it); a refusal
   * (NO_CODON_RUNNING, INSUFFICIENT_PERMISSIONS, ...) rejects with a CommandError.
   */
  sendMessage(text: string, options: { timeoutMs?: number } = {}): Promise<ServerEventOf<'codon.message'>> {
    const clientId = this.clientId;
    return this.request('codon.message', { text }, 'codon.message', {
      ...options,
      match: (e) =>
        e.data.from.kind === 'client' && e.data.from.clientId === clientId && e.data.text === text,
    });
  }

  on<T extends EventType>(type: T, listener: (event: ServerEventOf<T>) => void): () => void {
    return this.onEvent((e) => {
      if (e.type === type) listener(e as ServerEventOf<T>);
    });
  }

  onEvent(listener: Listener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  onStateChange(listener: (state: ConnectionState) => void): () => void {
    this.#stateListeners.add(listener);
    return () => this.#stateListeners.delete(listener);
  }

  /** Waits for the next event of a type (and predicate); rejects after `timeoutMs`. */
  next<T extends EventType>(
    type: T,
    predicate: (e: ServerEventOf<T>) => boolean = () => true,
    timeoutMs = 10_000,
  ): Promise<ServerEventOf<T>> {
    return this.waitFor(
      (e) => e.type === type && predicate(e as ServerEventOf<T>),
      timeoutMs,
      type,
    ) as Promise<ServerEventOf<T>>;
  }

  /** Waits for the first future event matching; rejects after `timeoutMs` or when the client closes. */
  waitFor(match: (e: ServerEvent) => boolean, timeoutMs: number, what: string): Promise<ServerEvent> {
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        match,
        resolve: (e) => {
          clearTimeout(timer);
          this.#waiters.delete(waiter);
          resolve(e);
        },
      };
      const timer = setTimeout(() => {
        this.#waiters.delete(waiter);
        reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}`));
      }, timeoutMs);
      this.#waiters.add(waiter);
    });
  }

  /** Every event from now on, as an async iterator (ends when the client closes). */
  events(): AsyncGenerator<ServerEvent> {
    return eventsOf(this);
  }

  /**
   * Fetches the whole journal with history.sync, collecting every batch until `hasMore` is false;
   * events delivered twice (live and in a batch) are dropped by id. A refusal (one sync at a time
   * per client: HISTORY_SYNC_IN_PROGRESS) rejects with a CommandError.
   */
  async syncHistory(timeoutMs = 60_000): Promise<ServerEvent[]> {
    const events: ServerEvent[] = [];
    const seen = new Set<string>();
    await this.streamHistory(
      (batch) => {
        for (const event of batch) {
          if (seen.has(event.id)) continue;
          seen.add(event.id);
          events.push(event);
        }
      },
      { timeoutMs, idle: false },
    );
    return events;
  }

  /**
   * Streams the whole journal with history.sync, handing each history.batch's events to `onBatch`
   * as it arrives and keeping none of them (history-stream.ts says how).
   */
  streamHistory(
    onBatch: (events: ServerEvent[]) => void,
    options: { timeoutMs?: number; idle?: boolean } = {},
  ): Promise<number> {
    const connection: HistoryConnection = {
      on: this.on.bind(this),
      onStateChange: this.onStateChange.bind(this),
      sendSync: () => this.send('history.sync'),
      lastFrameAt: () => this.#lastFrameAt,
      parseEvent: this.#frames.event,
      invalid: (why) => this.#invalid(why),
    };
    return streamHistory(connection, onBatch, options);
  }

  async close(): Promise<void> {
    this.#closedByUser = true;
    await this.#socket?.close(1000, 'client closed');
    this.#setState('closed');
  }

  #require<T>(value: T | undefined): T {
    if (value === undefined) throw new Error('the handshake has not completed');
    return value;
  }

  #setState(state: ConnectionState): void {
    if (this.#state === state) return;
    this.#state = state;
    for (const l of this.#stateListeners) l(state);
  }

  async #open(): Promise<void> {
    const timeoutMs = this.#options.connectTimeoutMs ?? 10_000;
    const deadline = Date.now() + timeoutMs;
    const ticket = await this.#options.ticket?.();
    const socket = await this.#openSocket(this.url, {
      timeoutMs: Math.max(1, deadline - Date.now()),
      ...(this.#options.origin ? { origin: this.#options.origin } : {}),
      ...(this.#options.token ? { token: this.#options.token } : {}),
      ...(ticket ? { ticket } : {}),
    });
    this.#socket = socket;
    socket.onMessage((text, isBinary) => this.#onMessage(text, isBinary));
    const left = Math.max(1, deadline - Date.now());
    const handshaken = Promise.all([
      this.next('handshake.response', () => true, left),
      this.next('server.ready', () => true, left),
    ]);
    socket.send(
      JSON.stringify({
        type: 'handshake',
        data: { mode: this.#options.mode, sendPreviousEvents: this.#options.sendPreviousEvents ?? false },
      }),
    );
    const [response, ready] = await handshaken;
    this.#handshake = response.data;
    this.#ready = ready.data;
    socket.onClose(() => void this.#onClose());
    this.#setState('open');
  }

  async #onClose(): Promise<void> {
    const reconnect = reconnectOptionsOf(this.#options.reconnect);
    if (this.#closedByUser || !reconnect) {
      this.#setState('closed');
      return;
    }
    this.#setState('reconnecting');
    let delay = reconnect.minDelayMs;
    for (let attempt = 0; attempt < reconnect.retries && !this.#closedByUser; attempt++) {
      await new Promise((r) => setTimeout(r, delay));
      delay = Math.min(delay * 2, reconnect.maxDelayMs);
      try {
        await this.#open();
        return;
      } catch {
        // Try again after the next delay.
      }
    }
    this.#setState('closed');
  }

  /** Frames that failed validation since the client was made, those no longer in `invalidFrames` too. */
  get invalidFrameCount(): number {
    return this.#invalidFrameCount;
  }

  #invalid(why: string): void {
    this.#invalidFrameCount += 1;
    const said = why.length > INVALID_FRAME_CHARS ? `${why.slice(0, INVALID_FRAME_CHARS)}...` : why;
    this.invalidFrames.push(said);
    if (this.invalidFrames.length > INVALID_FRAMES_KEPT) this.invalidFrames.shift();
    this.refused(said, this.#invalidFrameCount);
  }

  /** Called for each frame (or event of a batch) that failed validation, the `count`th so far. */
  protected refused(_why: string, _count: number): void {}

  #onMessage(text: string, isBinary: boolean): void {
    this.#lastFrameAt = Date.now();
    if (isBinary) {
      this.#invalid('binary frame');
      return;
    }
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch {
      this.#invalid(text.slice(0, 200));
      return;
    }
    const parsed = this.#frames.frame(raw);
    if (!parsed.ok) {
      this.#invalid(parsed.error);
      return;
    }
    const event = parsed.event;
    const keep = this.#options.keepEvents ?? 10_000;
    // A history.batch carries a thousand events and is handed to streamHistory, not kept: kept, the
    // last 10 000 of them were the whole of a million-event journal.
    if (keep > 0 && event.type !== 'history.batch') {
      this.#received.push(event);
      if (this.#received.length > keep) this.#received.splice(0, this.#received.length - keep);
    }
    for (const waiter of this.#waiters) if (waiter.match(event)) waiter.resolve(event);
    for (const listener of this.#listeners) listener(event);
  }
}
