import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { Logger } from 'pino';
import { type RawData, type WebSocket, WebSocketServer } from 'ws';
import type { ClientMode } from '../../core/protocol/index.ts';
import { admitUpgrade } from './admission.ts';
import { CLOSE, ClientSession } from './client-session.ts';
import { type CommandDeps, dispatchCommand } from './commands.ts';
import { mintTicket, newTicketKey, normalOrigin, selectProtocol, TICKET_TTL_MS } from './dashboard-ticket.ts';
import { parseCommand, parseFrame } from './frame.ts';
import { gateCommand } from './gate.ts';
import { answerHandshake } from './handshake.ts';
import { createHttpRejecter, refuseUpgrade } from './http-reject.ts';
import type { TokenBucket } from './rate-limit.ts';
import { sendError } from './send.ts';
import type { ControlServerOptions, MintTicket } from './server-options.ts';
import { ClientSessions } from './sessions.ts';

/**
 * Interface A: the WebSocket endpoint. It admits upgrades (admission.ts), validates every frame,
 * applies the connection gates of spec 3.1, answers connection-level commands itself
 * (commands.ts), hands the rest to the engine and fans journaled events out to every handshaken
 * client (sessions.ts).
 */
export class ControlServer {
  readonly #options: ControlServerOptions;
  readonly #http: Server;
  readonly #wss: WebSocketServer;
  readonly #sessions: ClientSessions;
  /** What connection-level commands need: built once, not per frame. */
  readonly #commands: CommandDeps;
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
    this.#sessions = new ClientSessions({ log: this.#log, closeGraceMs: options.limits.closeGraceMs });
    this.#commands = {
      engine: options.engine,
      journal: options.journal,
      historyBatch: options.limits.historyBatch,
      sessions: this.#sessions,
      mintTicket: (origin, mode) => this.mintTicket(origin, mode),
      onShutdownRequested: options.onShutdownRequested,
      log: this.#log,
    };
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
   * A ticket that lets a dashboard page of `origin` open a WebSocket here (docs/dashboard.md#access-token):
   * for `--web` in this process, and `dashboard.ticket` for `ribosome web`. Undefined for an origin
   * that is not `http(s)://HOST:PORT`.
   */
  mintTicket(origin: string, mode: ClientMode): ReturnType<MintTicket> {
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
    this.#unsubscribe = this.#options.bus.subscribeBatch((batch) => this.#sessions.broadcastBatch(batch));
    this.#heartbeat = setInterval(() => this.#sessions.beat(), this.#options.limits.heartbeatMs);
    this.#heartbeat.unref();
    this.#log.info({ url: this.#url }, 'listening');
    return { url: this.#url, port: this.#port };
  }

  /** Closes every client with 1001 and stops listening. */
  async close(reason = 'server shutting down'): Promise<void> {
    clearInterval(this.#heartbeat);
    this.#unsubscribe?.();
    await this.#sessions.closeAll(reason);
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
    const admitted = admitUpgrade(req, socket.remoteAddress, {
      ticketKey: this.#ticketKey,
      token: this.#options.token,
      allowOrigins: this.#options.allowOrigins,
      maxClients: this.#options.limits.maxClients,
      clients: this.#sessions.size,
      now: Date.now(),
    });
    if (!admitted.ok) {
      this.#log.warn(admitted.log.fields, admitted.log.message);
      refuseUpgrade(socket, admitted.status, admitted.body);
      return;
    }
    this.#wss.handleUpgrade(req, socket, head, (ws) =>
      this.#onConnection(ws, socket, admitted.fromPage, admitted.ticketMode),
    );
  }

  #onConnection(ws: WebSocket, socket: Socket, fromPage: boolean, ticketMode: ClientMode | undefined): void {
    const session = new ClientSession({
      id: `client-${randomUUID()}`,
      ws,
      socket,
      maxBufferedBytes: this.#options.limits.maxBufferedBytes,
      onOverflow: (s) => this.#sessions.dropSlow(s),
      messageRate: this.#options.limits.messageRate,
    });
    session.fromPage = fromPage;
    session.ticketMode = ticketMode;
    this.#sessions.add(session);
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
      this.#sessions.delete(session);
      this.#log.debug({ clientId: session.id, code }, 'client disconnected');
    });
  }

  /** Parse (pure) -> gate (pure) -> dispatch; each refusal one `sendError`. */
  #onFrame(session: ClientSession, data: RawData, isBinary: boolean): void {
    // A client being dropped gets no more work done for it, whatever it still sends.
    if (session.closing) return;
    const raw = Buffer.isBuffer(data) ? data : Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data);
    const { engine, journal, bus, info, limits } = this.#options;
    const parsed = parseFrame(raw, isBinary, limits.maxFrameBytes);
    if (!parsed.ok) {
      const { code, message, commandId } = parsed.problem;
      sendError(session, code, message, commandId);
      return;
    }
    if (parsed.kind === 'handshake') {
      answerHandshake(session, parsed.handshake, {
        journal,
        bus,
        engine,
        info,
        handshakeHistory: limits.handshakeHistory,
        port: this.#port,
        log: this.#log,
      });
      return;
    }
    // The gate before the payload: a readonly client is refused whatever it sent (spec 3.1 "always").
    const refused = gateCommand(parsed.type, {
      mode: session.mode,
      rollingBack: engine.rollingBack,
      fromPage: session.fromPage,
      readonlyDashboard: session.ticketMode === 'readonly',
    });
    if (refused) {
      sendError(session, refused.code, refused.message, parsed.commandId);
      return;
    }
    const checked = parseCommand(parsed);
    if (!checked.ok) {
      const { code, message, commandId } = checked.problem;
      sendError(session, code, message, commandId);
      return;
    }
    const command = checked.command;
    // A flood of messages from one client stops here, before the engine or the journal sees it.
    if (command.type === 'codon.message' && !session.messages.take(Date.now())) {
      sendError(session, 'RATE_LIMITED', rateLimited(session.messages), command.id);
      return;
    }
    try {
      dispatchCommand(session, command, this.#commands);
    } catch (error) {
      this.#log.error({ err: error, type: command.type }, 'command failed');
      sendError(session, 'INTERNAL_ERROR', `${command.type} failed: ${String(error)}`, command.id);
    }
  }
}

/** What RATE_LIMITED says: the limits, and when the next message is taken. */
function rateLimited(bucket: TokenBucket): string {
  const { burst, perSecond } = bucket;
  return `the message is not sent: this client sends messages faster than ${perSecond} a second after ${burst} at once (limits.messageRate, limits.messageBurst); send again in ${bucket.waitMs(Date.now())} ms`;
}
