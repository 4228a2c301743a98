import type { Logger } from 'pino';
import type { ClientMode, EventInput } from '../../core/protocol/index.ts';
import type { Engine } from '../../engine/engine.ts';
import type { EventBus } from '../../execution/journal/event-bus.ts';
import type { Journal } from '../../execution/journal/journal.ts';
import type { HistoryLimits } from './history-stream.ts';

export type ServerLimits = {
  /** Largest command frame accepted; bigger ones get MESSAGE_TOO_LARGE. */
  maxFrameBytes: number;
  /** Frames above this close the connection (1009): the socket must not buffer without bound. */
  hardMaxFrameBytes: number;
  /** A client whose unsent data passes this is disconnected (1008). */
  maxBufferedBytes: number;
  /** WebSocket clients at once; further upgrades get HTTP 503. */
  maxClients: number;
  /** A connection must upgrade, then send its handshake, each within this (else closed). */
  handshakeTimeoutMs: number;
  heartbeatMs: number;
  closeGraceMs: number;
  historyBatch: HistoryLimits;
  handshakeHistory: HistoryLimits;
  /** codon.message per client: `burst` at once, then `perSecond`; faster ones get RATE_LIMITED. */
  messageRate: { perSecond: number; burst: number };
};

/** What server.ready says beyond the server's own fields: the plan, its budget, the proxy (once started). */
export type ReadyExtras = Pick<EventInput<'server.ready'>, 'plan' | 'proxy' | 'budget'>;

export type ServerInfo = {
  serverVersion: string;
  executionPath: string;
  agentRootPath: string;
  dataPath: string;
  /** Read at each handshake: what is known only once companions (the proxy) have started. */
  extras?: () => ReadyExtras;
};

export type ControlServerOptions = {
  host: string;
  port: number;
  allowOrigins: readonly string[];
  /**
   * When set, an upgrade must carry it (`Authorization: Bearer` or `?token=`) or a dashboard ticket:
   * 401 without one, 403 with a wrong one. Never logged.
   */
  token?: string | undefined;
  limits: ServerLimits;
  info: ServerInfo;
  bus: EventBus;
  journal: Journal;
  engine: Engine;
  logger: Logger;
  /** Called for server.shutdown; the owner stops everything, this server included. */
  onShutdownRequested: (reason: string, clientId: string) => void;
};

/** A ticket for a dashboard page of `origin` (ControlServer.mintTicket); undefined for a bad origin. */
export type MintTicket = (
  origin: string,
  mode: ClientMode,
) => { ticket: string; expiresAt: number; origin: string } | undefined;
