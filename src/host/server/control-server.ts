import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { Logger } from 'pino';
import { type RawData, WebSocket, WebSocketServer } from 'ws';
import {
  type ClientCommand,
  type ClientMode,
  type ErrorCode,
  type EventInput,
  type EventType,
  echo,
  eventDataSchemas,
  type HandshakeRequest,
  makeEvent,
  REASON_MAX_CHARS,
} from '../../core/protocol/index.ts';
import type { CommandContext, Engine } from '../../engine/engine.ts';
import type { EventBus } from '../../execution/journal/event-bus.ts';
import type { Journal } from '../../execution/journal/journal.ts';
import { checkToken } from '../../platform/http/token.ts';
import { CLOSE, ClientSession } from './client-session.ts';
import {
  mintTicket,
  newTicketKey,
  normalOrigin,
  selectProtocol,
  TICKET_TTL_MS,
  type Ticket,
  ticketsOffered,
  verifyTicket,
} from './dashboard-ticket.ts';
import { parseCommand, parseFrame } from './frame.ts';
import { gateCommand } from './gate.ts';
import { frameWithEvents, type HistoryLimits, streamHistory } from './history-stream.ts';
import { createHttpRejecter, refuseUpgrade } from './http-reject.ts';
import { decideUpgrade } from './origin.ts';
import type { TokenBucket } from './rate-limit.ts';
import { textFrames } from './ws-frames.ts';

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

/**
 * Interface A: the WebSocket endpoint. It validates every frame, applies the connection gates of
 * spec 3.1, answers connection-level commands itself, hands the rest to the engine and fans
 * journaled events out to every handshaken client.
 */
export class ControlServer {
  readonly #options: ControlServerOptions;
  readonly #http: Server;
  readonly #wss: WebSocketServer;
  readonly #sessions = new Map<string, ClientSession>();
  /** TCP connections not yet upgraded, with the timer that closes them if they never are. */
  readonly #pendingUpgrades = new Map<Socket, NodeJS.Timeout>();
  readonly #log: Logger;
  #heartbeat: NodeJS.Timeout | undefined;
  #unsubscribe: (() => void) | undefined;
  #url = '';
  #port = 0;
  /** Signs dashboard tickets; never leaves this process. */
  readonly #ticketKey = newTicketKey();

  constructor(options: ControlServerOptions) {
    this.#options = options;
    this.#log = options.logger.child({ component: 'server' });
    this.#http = createServer(createHttpRejecter(() => this.#url));
    this.#http.on('upgrade', (req, socket: Socket, head) => this.#onUpgrade(req, socket, head));
    this.#http.on('clientError', (_error, socket) => socket.destroy());
    this.#http.on('connection', (socket: Socket) => this.#onTcpConnection(socket));
    // The clients, plus as many again still upgrading (to be told 503 or timed out); beyond that,
    // new TCP connections are closed at once, before any parsing.
    this.#http.maxConnections = options.limits.maxClients * 2;
    this.#wss = new WebSocketServer({
      noServer: true,
      maxPayload: options.limits.hardMaxFrameBytes,
      // Invalid UTF-8 is reported as a bad frame instead of closing the connection (1007).
      skipUTF8Validation: true,
      // Never on: the broadcast writes pre-encoded frames beside ws (ClientSession.sendFrames).
      perMessageDeflate: false,
      // A dashboard offers `ribosome` beside its ticket; the ticket is never echoed back.
      handleProtocols: (offered) => selectProtocol(offered),
    });
  }

  get url(): string {
    return this.#url;
  }

  get port(): number {
    return this.#port;
  }

  /**
   * A ticket that lets a dashboard page of `origin` open a WebSocket here (README "Access token"):
   * for `--web` in this process, and `dashboard.ticket` for `ribosome web`. Undefined for an origin
   * that is not `http(s)://HOST:PORT`.
   */
  mintTicket(
    origin: string,
    mode: ClientMode,
  ): { ticket: string; expiresAt: number; origin: string } | undefined {
    const normal = normalOrigin(origin);
    if (!normal) return undefined;
    const expiresAt = Date.now() + TICKET_TTL_MS;
    return {
      ticket: mintTicket(this.#ticketKey, { origin: normal, mode, expiresAt }),
      expiresAt,
      origin: normal,
    };
  }

  get clientCount(): number {
    return this.#sessions.size;
  }

  async listen(): Promise<{ url: string; port: number }> {
    const { host, port } = this.#options;
    await new Promise<void>((resolve, reject) => {
      this.#http.once('error', reject);
      this.#http.listen(port, host, () => {
        this.#http.off('error', reject);
        resolve();
      });
    });
    this.#port = (this.#http.address() as AddressInfo).port;
    this.#url = `ws://${host.includes(':') ? `[${host}]` : host}:${this.#port}`;
    this.#unsubscribe = this.#options.bus.subscribeBatch((batch) => this.#broadcastBatch(batch));
    this.#heartbeat = setInterval(() => this.#beat(), this.#options.limits.heartbeatMs);
    this.#heartbeat.unref();
    this.#log.info({ url: this.#url }, 'listening');
    return { url: this.#url, port: this.#port };
  }

  /** Closes every client with 1001 and stops listening. */
  async close(reason = 'server shutting down'): Promise<void> {
    clearInterval(this.#heartbeat);
    this.#unsubscribe?.();
    const closed = [...this.#sessions.values()].map(
      (s) =>
        new Promise<void>((resolve) => {
          if (s.ws.readyState === WebSocket.CLOSED) return resolve();
          s.ws.once('close', () => resolve());
          s.close(CLOSE.shutdown, reason, this.#options.limits.closeGraceMs);
        }),
    );
    await Promise.all(closed);
    await new Promise<void>((resolve) => {
      this.#http.close(() => resolve());
      this.#http.closeAllConnections();
    });
    this.#wss.close();
  }

  /** A connection that has not asked for its upgrade within the handshake timeout is closed. */
  #onTcpConnection(socket: Socket): void {
    const timer = setTimeout(() => {
      this.#log.info({ remote: socket.remoteAddress }, 'closing a connection that did not upgrade in time');
      socket.destroy();
    }, this.#options.limits.handshakeTimeoutMs);
    timer.unref();
    this.#pendingUpgrades.set(socket, timer);
    socket.once('close', () => {
      clearTimeout(timer);
      this.#pendingUpgrades.delete(socket);
    });
  }

  #onUpgrade(req: IncomingMessage, socket: Socket, head: Buffer): void {
    clearTimeout(this.#pendingUpgrades.get(socket));
    this.#pendingUpgrades.delete(socket);
    const { token } = this.#options;
    const origin = req.headers.origin;
    const now = Date.now();
    let ticket: Ticket | undefined;
    for (const offered of ticketsOffered(req.headers['sec-websocket-protocol'])) {
      ticket ??= verifyTicket(this.#ticketKey, offered, origin, now);
    }
    const verdict = decideUpgrade({
      origin,
      allowOrigins: this.#options.allowOrigins,
      ticket,
      token:
        token === undefined
          ? 'none'
          : checkToken({ authorization: req.headers.authorization, url: req.url }, token),
    });
    if (!verdict.ok) {
      const shown = echo(origin ?? '');
      const offeredTicket = ticketsOffered(req.headers['sec-websocket-protocol']).length > 0;
      this.#log.warn(
        { remote: socket.remoteAddress, origin: shown, verdict: verdict.error, ticket: offeredTicket },
        verdict.error === 'origin_not_allowed'
          ? 'refused WebSocket upgrade from a non-allowed origin'
          : 'refused WebSocket upgrade: token',
      );
      refuseUpgrade(socket, verdict.status, {
        error: verdict.error,
        message:
          verdict.error === 'token_required'
            ? 'this server requires its access token: send Authorization: Bearer <token> (or open the dashboard address it printed)'
            : verdict.error === 'token_wrong'
              ? 'the access token sent is not this server’s'
              : `Origin ${shown} is not allowed: a page may connect only from a Ribosome dashboard (with the ticket it gets there) or from an origin given with --allow-origin ${shown}`,
      });
      return;
    }
    const { maxClients } = this.#options.limits;
    if (this.#sessions.size >= maxClients) {
      this.#log.warn({ clients: this.#sessions.size }, 'refused WebSocket upgrade: too many clients');
      refuseUpgrade(socket, '503 Service Unavailable', {
        error: 'too_many_clients',
        message: `this server already has ${maxClients} clients, its limit (--max-clients, limits.maxClients in the config file); try again once one has disconnected`,
        maxClients,
      });
      return;
    }
    const fromPage = origin !== undefined && origin !== '';
    this.#wss.handleUpgrade(req, socket, head, (ws) =>
      this.#onConnection(ws, socket, fromPage, verdict.ticket?.mode),
    );
  }

  #onConnection(ws: WebSocket, socket: Socket, fromPage: boolean, ticketMode: ClientMode | undefined): void {
    const session = new ClientSession({
      id: `client-${randomUUID()}`,
      ws,
      socket,
      maxBufferedBytes: this.#options.limits.maxBufferedBytes,
      onOverflow: (s) => this.#dropSlowClient(s),
      messageRate: this.#options.limits.messageRate,
    });
    session.fromPage = fromPage;
    session.ticketMode = ticketMode;
    this.#sessions.set(session.id, session);
    this.#log.debug({ clientId: session.id, fromPage, ticketMode }, 'client connected');
    const { handshakeTimeoutMs, closeGraceMs } = this.#options.limits;
    const handshakeTimer = setTimeout(() => {
      if (session.handshaken) return;
      this.#log.info({ clientId: session.id }, 'closing a client that sent no handshake in time');
      session.close(
        CLOSE.handshakeTimeout,
        `no handshake within ${handshakeTimeoutMs} ms; send {"type":"handshake","data":{"mode":"readonly"}} first`,
        closeGraceMs,
      );
    }, handshakeTimeoutMs);
    handshakeTimer.unref();
    ws.on('pong', () => {
      session.alive = true;
    });
    ws.on('message', (data, isBinary) => this.#onFrame(session, data, isBinary));
    ws.on('error', (error) => this.#log.warn({ clientId: session.id, err: error }, 'client socket error'));
    ws.on('close', (code) => {
      clearTimeout(handshakeTimer);
      this.#sessions.delete(session.id);
      this.#log.debug({ clientId: session.id, code }, 'client disconnected');
    });
  }

  #onFrame(session: ClientSession, data: RawData, isBinary: boolean): void {
    // A client being dropped gets no more work done for it, whatever it still sends.
    if (session.closing) return;
    const raw = Buffer.isBuffer(data) ? data : Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data);
    const parsed = parseFrame(raw, isBinary, this.#options.limits.maxFrameBytes);
    if (!parsed.ok) {
      const { code, message, commandId } = parsed.problem;
      this.#sendError(session, code, message, commandId);
      return;
    }
    if (parsed.kind === 'handshake') {
      this.#handshake(session, parsed.handshake);
      return;
    }
    // The gate before the payload: a readonly client is refused whatever it sent (spec 3.1 "always").
    const refused = gateCommand(parsed.type, {
      mode: session.mode,
      rollingBack: this.#options.engine.rollingBack,
      fromPage: session.fromPage,
      readonlyDashboard: session.ticketMode === 'readonly',
    });
    if (refused) {
      this.#sendError(session, refused.code, refused.message, parsed.commandId);
      return;
    }
    const checked = parseCommand(parsed);
    if (!checked.ok) {
      const { code, message, commandId } = checked.problem;
      this.#sendError(session, code, message, commandId);
      return;
    }
    const command = checked.command;
    // A flood of messages from one client stops here, before the engine or the journal sees it.
    if (command.type === 'codon.message' && !session.messages.take(Date.now())) {
      this.#sendError(session, 'RATE_LIMITED', rateLimited(session.messages), command.id);
      return;
    }
    try {
      this.#dispatch(session, command);
    } catch (error) {
      this.#log.error({ err: error, type: command.type }, 'command failed');
      this.#sendError(session, 'INTERNAL_ERROR', `${command.type} failed: ${String(error)}`, command.id);
    }
  }

  #dispatch(session: ClientSession, command: ClientCommand): void {
    switch (command.type) {
      case 'ping':
        this.#sendTo(session, 'pong', { message: 'pong', timestamp: new Date().toISOString() });
        return;
      case 'ping.broadcast': {
        const frame = JSON.stringify(
          makeEvent('pong', { message: 'pong', timestamp: new Date().toISOString(), clientId: session.id }),
        );
        this.#broadcast(frame);
        return;
      }
      case 'history.sync':
        this.#historySync(session, command.id);
        return;
      case 'server.shutdown': {
        const reason = echo(command.data.reason, REASON_MAX_CHARS);
        this.#log.info({ clientId: session.id, reason }, 'shutdown requested');
        this.#options.onShutdownRequested(reason, session.id);
        return;
      }
      case 'dashboard.ticket': {
        const { origin, mode } = command.data;
        // A readonly client may hand out readonly tickets only: no more than it has itself.
        if (mode === 'readandwrite' && session.mode !== 'readandwrite') {
          this.#sendError(
            session,
            'INSUFFICIENT_PERMISSIONS',
            'a readandwrite dashboard.ticket needs a readandwrite client; this client is readonly',
            command.id,
          );
          return;
        }
        const minted = this.mintTicket(origin, mode);
        if (!minted) {
          this.#sendError(
            session,
            'INVALID_COMMAND',
            `dashboard.ticket: origin ${echo(origin)} is not http(s)://HOST:PORT`,
            command.id,
          );
          return;
        }
        this.#log.info({ clientId: session.id, origin: minted.origin, mode }, 'dashboard ticket issued');
        this.#sendTo(session, 'dashboard.ticket', {
          ticket: minted.ticket,
          origin: minted.origin,
          mode,
          expiresAt: new Date(minted.expiresAt).toISOString(),
        });
        return;
      }
      default:
        this.#options.engine.handle(command, this.#contextFor(session, command.id));
    }
  }

  /** One history.sync per client at a time: each one holds a batch in memory while it streams. */
  #historySync(session: ClientSession, commandId: string): void {
    if (session.historySyncing) {
      this.#sendError(
        session,
        'HISTORY_SYNC_IN_PROGRESS',
        'this client already has a history.sync streaming; send another after its last history.batch (hasMore: false)',
        commandId,
      );
      return;
    }
    session.historySyncing = true;
    streamHistory(this.#options.journal, session, this.#options.limits.historyBatch)
      .catch((error: unknown) =>
        this.#log.warn({ clientId: session.id, err: error }, 'history sync interrupted'),
      )
      .finally(() => {
        session.historySyncing = false;
      });
  }

  #contextFor(session: ClientSession, commandId: string): CommandContext {
    return {
      clientId: session.id,
      commandId,
      reply: (type, data) => this.#sendTo(session, type, data),
      fail: (code, message) => this.#sendError(session, code, message, commandId),
    };
  }

  #handshake(session: ClientSession, request: HandshakeRequest): void {
    if (session.handshaken) {
      this.#sendError(
        session,
        'HANDSHAKE_ALREADY_DONE',
        `this client already completed its handshake as ${session.mode}; reconnect to change mode`,
        request.id,
      );
      return;
    }
    const { sendPreviousEvents } = request.data;
    // The mode granted (spec 2.2: the response says it): no more than the client's ticket allows.
    const mode: ClientMode = session.ticketMode === 'readonly' ? 'readonly' : request.data.mode;
    session.mode = mode;
    const { journal, bus, limits, info } = this.#options;
    // Serialized by hand so stored events are sent exactly as journaled, never parsed again.
    const history = sendPreviousEvents ? journal.recentOfRun(bus.runId, limits.handshakeHistory) : [];
    session.send(
      frameWithEvents('handshake.response', 'eventHistory', history, {
        before: `"clientId":"${session.id}","mode":"${mode}",`,
        after: `,"totalEvents":${journal.count()}`,
      }),
    );
    const { extras, ...fixed } = info;
    this.#sendTo(session, 'server.ready', {
      ...fixed,
      ...extras?.(),
      ...this.#options.engine.readyInfo?.(),
      port: this.#port,
    });
    this.#options.engine.greet?.((type, data) => this.#sendTo(session, type, data));
    this.#log.info({ clientId: session.id, mode, asked: request.data.mode }, 'client handshaken');
  }

  #sendTo<T extends EventType>(session: ClientSession, type: T, data: EventInput<T>): void {
    const parsed = eventDataSchemas[type].parse(data);
    session.send(JSON.stringify(makeEvent(type, parsed as never)));
  }

  #sendError(session: ClientSession, code: ErrorCode, message: string, commandId?: string): void {
    this.#sendTo(session, 'error', {
      message,
      fatal: false,
      severity: 'operation',
      code,
      ...(commandId === undefined ? {} : { commandId }),
    });
  }

  #broadcast(json: string): void {
    const payload = Buffer.from(json);
    for (const session of this.#sessions.values()) {
      if (session.handshaken) session.send(payload);
    }
  }

  /**
   * One commit's events are framed once and go to each client in one write: far fewer syscalls and
   * no per-client framing under load.
   */
  #broadcastBatch(batch: ReadonlyArray<{ json: string }>): void {
    let frames: Buffer | undefined;
    for (const session of this.#sessions.values()) {
      if (!session.handshaken) continue;
      frames ??= textFrames(batch.map((b) => Buffer.from(b.json)));
      session.sendFrames(frames);
    }
  }

  #dropSlowClient(session: ClientSession): void {
    this.#log.warn(
      { clientId: session.id, buffered: session.ws.bufferedAmount },
      'dropping a client that fell behind',
    );
    session.close(
      CLOSE.slowConsumer,
      'send buffer overflow: client too slow; reconnect and use history.sync',
      this.#options.limits.closeGraceMs,
    );
  }

  /** Dead peers never answer a ping: terminate them on the next beat. */
  #beat(): void {
    for (const session of this.#sessions.values()) {
      if (!session.alive) {
        this.#log.info({ clientId: session.id }, 'client missed a heartbeat; terminating');
        session.ws.terminate();
        continue;
      }
      session.alive = false;
      session.ws.ping();
    }
  }
}

/** What RATE_LIMITED says: the limits, and when the next message is taken. */
function rateLimited(bucket: TokenBucket): string {
  const { burst, perSecond } = bucket;
  return `the message is not sent: this client sends messages faster than ${perSecond} a second after ${burst} at once (limits.messageRate, limits.messageBurst); send again in ${bucket.waitMs(Date.now())} ms`;
}
