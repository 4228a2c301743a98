import type { ClientPort } from '../../../../src/clients/model/client-port.ts';
import type { ConnectionState } from '../../../../src/core/client/index.ts';
import {
  type ClientMode,
  type CommandInput,
  type CommandType,
  type EventData,
  type EventType,
  makeEvent,
  type ServerEvent,
  type ServerEventOf,
} from '../../../../src/core/protocol/index.ts';

/** Builds a server event with a unique id (and, optionally, a fixed time). */
export function ev<T extends EventType>(type: T, data: EventData<T>, timestamp?: string): ServerEventOf<T> {
  const event = makeEvent(type, data);
  return timestamp ? { ...event, timestamp } : event;
}

export type Sent = { id: string; type: CommandType; data: unknown };

/**
 * A client without a server: the test decides what history.sync returns, pushes live events, changes
 * the connection state, and reads the commands the UI sent.
 */
export class FakeClient implements ClientPort {
  readonly url = 'ws://127.0.0.1:4711';
  readonly clientId = 'client-tui-test';
  readonly mode: ClientMode;
  state: ConnectionState = 'open';
  readonly serverInfo: EventData<'server.ready'>;
  readonly sent: Sent[] = [];
  history: ServerEvent[];
  syncCount = 0;
  closed = false;
  /** When set, history.sync waits for this before answering. */
  gate: Promise<void> | undefined;
  readonly #listeners = new Set<(e: ServerEvent) => void>();
  readonly #stateListeners = new Set<(s: ConnectionState) => void>();
  #next = 0;

  constructor(
    options: {
      history?: ServerEvent[];
      mode?: ClientMode;
      ready?: Pick<EventData<'server.ready'>, 'plan' | 'proxy'>;
    } = {},
  ) {
    this.serverInfo = {
      serverVersion: '0.1.0-test',
      executionPath: '/tmp/exec',
      agentRootPath: '/tmp/exec/agentRoot',
      dataPath: '/tmp/exec/data',
      port: 4711,
      ...options.ready,
    };
    this.history = options.history ?? [];
    this.mode = options.mode ?? 'readandwrite';
  }

  send<T extends CommandType>(type: T, data?: CommandInput<T>): string {
    if (this.state !== 'open') throw new Error(`not connected (state ${this.state})`);
    const id = `cmd-${++this.#next}`;
    this.sent.push({ id, type, data });
    return id;
  }

  onEvent(listener: (e: ServerEvent) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  onStateChange(listener: (s: ConnectionState) => void): () => void {
    this.#stateListeners.add(listener);
    return () => this.#stateListeners.delete(listener);
  }

  /** Sent commands other than checkpoint.list (which the UI also sends by itself to stay current). */
  controls(): Sent[] {
    return this.sent.filter((c) => c.type !== 'checkpoint.list');
  }

  async syncHistory(): Promise<ServerEvent[]> {
    this.syncCount++;
    await this.gate;
    return [...this.history];
  }

  /** The history in batches of `batchSize`, one per turn of the event loop, as a server streams it. */
  batchSize = 100;
  async streamHistory(onBatch: (events: ServerEvent[]) => void): Promise<number> {
    const events = await this.syncHistory();
    for (let i = 0; i < events.length || i === 0; i += this.batchSize) {
      await new Promise((resolve) => setImmediate(resolve));
      onBatch(events.slice(i, i + this.batchSize));
    }
    return events.length;
  }

  async close(): Promise<void> {
    this.closed = true;
  }

  emit(...events: ServerEvent[]): void {
    for (const e of events) for (const l of this.#listeners) l(e);
  }

  setState(state: ConnectionState): void {
    this.state = state;
    for (const l of this.#stateListeners) l(state);
  }

  /** Answers the last control command with an error carrying its id, as the server does. */
  refuse(code: string, message: string): ServerEventOf<'error'> {
    const last = this.controls().at(-1);
    const event = ev('error', {
      message,
      fatal: false,
      severity: 'operation',
      code,
      ...(last ? { commandId: last.id } : {}),
    });
    this.emit(event);
    return event;
  }
}
