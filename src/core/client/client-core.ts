import {
  type ClientMode,
  type CommandInput,
  type CommandType,
  type EventData,
  type EventType,
  parseServerEvent,
  type ServerEvent,
  type ServerEventOf,
} from '../protocol/index.ts';
import { newCommandId, type OpenSocket, type SocketPort } from './socket.ts';

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

type Listener = (event: ServerEvent) => void;
type Waiter = { match: (e: ServerEvent) => boolean; resolve: (e: ServerEvent) => void };

export class CommandError extends Error {
  readonly code: string | undefined;
  readonly event: ServerEventOf<'error'>;
  constructor(event: ServerEventOf<'error'>) {
    super(event.data.code ? `${event.data.code}: ${event.data.message}` : event.data.message);
    this.code = event.data.code;
    this.event = event;
  }
}

/** How many invalid frames `invalidFrames` keeps (the latest), and how much of each it says. */
export const INVALID_FRAMES_KEPT = 100;
const INVALID_FRAME_CHARS = 1_000;

const DEFAULT_RECONNECT: ReconnectOptions = {
  retries: Number.POSITIVE_INFINITY,
  minDelayMs: 200,
  maxDelayMs: 5_000,
};

/**
 * The typed client of the control protocol: connects, handshakes, sends commands with generated
 * ids and hands out validated events as callbacks, async iterators or awaited matches. The TUI,
 * the web dashboard, the tests and users all drive the server through it. The socket is a port:
 * RibosomeClient (Node, `ws`) and BrowserClient (the global WebSocket) give it theirs.
 */
export class ClientCore {
  readonly url: string;
  readonly #options: ClientOptions;
  readonly #openSocket: OpenSocket;
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

  protected constructor(url: string, options: ClientOptions, openSocket: OpenSocket) {
    this.url = url;
    this.#options = options;
    this.#openSocket = openSocket;
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
  async *events(): AsyncGenerator<ServerEvent> {
    const queue: ServerEvent[] = [];
    let wake: (() => void) | undefined;
    const offEvent = this.onEvent((e) => {
      queue.push(e);
      wake?.();
    });
    const offState = this.onStateChange((s) => {
      if (s === 'closed') wake?.();
    });
    try {
      for (;;) {
        const event = queue.shift();
        if (event) {
          yield event;
          continue;
        }
        if (this.#state === 'closed') return;
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
   * as it arrives and keeping none of them: a client folds a million-event journal batch by batch.
   * Resolves with the number of events once `hasMore` is false. `timeoutMs` bounds the whole sync,
   * or with `idle` (the default) the silence of the connection: it fails only once nothing at all
   * (no batch, no live event) arrived for that long. A busy server sends live events and batches in
   * turn, so a sync under live traffic is slower, never failed. A refusal rejects with a CommandError;
   * so does a throw from `onBatch` (with that error); a connection that closes rejects at once.
   */
  streamHistory(
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
          const quietMs = Date.now() - this.#lastFrameAt;
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
      const offState = this.onStateChange((state) => {
        if (state !== 'open') fail(new Error(`history.sync interrupted: the connection is ${state}`));
      });
      const offError = this.on('error', (error) => {
        if (error.data.commandId !== commandId) return;
        fail(new CommandError(error));
      });
      const offBatch = this.on('history.batch', (batch) => {
        const events: ServerEvent[] = [];
        for (const raw of batch.data.events) {
          const parsed = parseServerEvent(raw);
          if (parsed.ok) events.push(parsed.event);
          else this.#invalid(parsed.error);
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
    commandId = this.send('history.sync');
    return done;
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

  #reconnectOptions(): ReconnectOptions | undefined {
    const r = this.#options.reconnect;
    if (!r) return undefined;
    return r === true ? DEFAULT_RECONNECT : { ...DEFAULT_RECONNECT, ...r };
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
    const reconnect = this.#reconnectOptions();
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
    this.invalidFrames.push(
      why.length > INVALID_FRAME_CHARS ? `${why.slice(0, INVALID_FRAME_CHARS)}...` : why,
    );
    if (this.invalidFrames.length > INVALID_FRAMES_KEPT) this.invalidFrames.shift();
  }

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
    const parsed = parseFrame(raw);
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
function parseFrame(raw: unknown): ReturnType<typeof parseServerEvent> {
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
