import type { ClientCommand, ErrorCode, EventInput, EventType } from '../core/protocol/index.ts';
import type { SpendGate } from '../llm/spend/spend-gate.ts';

/** Commands the server answers itself (the connection's, the server's own): the engine never sees them. */
export type ServerCommandType =
  | 'ping'
  | 'ping.broadcast'
  | 'history.sync'
  | 'server.shutdown'
  | 'dashboard.ticket';

/** Commands the server hands to the engine: everything but the server's own. */
export type EngineCommand = Exclude<ClientCommand, { type: ServerCommandType }>;

/** How the engine answers the one client that sent a command. */
export type CommandContext = {
  clientId: string;
  commandId: string;
  /** Sends an event to this client only; never journaled. */
  reply<T extends EventType>(type: T, data: EventInput<T>): void;
  /** Sends an `error` (severity operation) with a code to this client only. */
  fail(code: ErrorCode, message: string): void;
};

/** What the engine adds to each server.ready. */
export type ReadyInfo = Pick<EventInput<'server.ready'>, 'resumed'>;

/** Sends an event to one client (used for connection-state events such as incomplete.codon). */
export type SendToClient = <T extends EventType>(type: T, data: EventInput<T>) => void;

export interface Engine {
  /** True while a rollback runs: the server refuses state-modifying commands (ROLLBACK_IN_PROGRESS). */
  readonly rollingBack: boolean;
  /** Starts the engine once the server listens (idles or autostarts). */
  start(): Promise<void>;
  /** Takes one validated, permitted command. The engine serializes them itself. */
  handle(command: EngineCommand, context: CommandContext): void;
  /** Called after a client's handshake, so the engine can tell it things only new clients need. */
  greet?(send: SendToClient): void;
  /** Fields of server.ready the engine knows (what this server resumed). */
  readyInfo?(): ReadyInfo;
  /** Stops whatever runs and releases resources; events published before it resolves are journaled. */
  stop(reason: string): Promise<void>;
  /** The run's budgets as the LLM proxy checks each request against them (docs/unattended.md#budgets). */
  readonly spendGate?: SpendGate;
}
