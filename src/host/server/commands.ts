import type { Logger } from 'pino';
import { type ClientCommand, echo, makeEvent, REASON_MAX_CHARS } from '../../core/protocol/index.ts';
import type { CommandContext, Engine } from '../../engine/engine.ts';
import type { Journal } from '../../execution/journal/journal.ts';
import type { ClientSession } from './client-session.ts';
import { type HistoryLimits, streamHistory } from './history-stream.ts';
import { sendError, sendEvent } from './send.ts';
import type { MintTicket } from './server-options.ts';
import type { ClientSessions } from './sessions.ts';

/** What the connection-level commands need of the server. */
export type CommandDeps = {
  engine: Engine;
  journal: Journal;
  historyBatch: HistoryLimits;
  sessions: ClientSessions;
  mintTicket: MintTicket;
  /** server.shutdown: the owner stops everything, this server included. */
  onShutdownRequested: (reason: string, clientId: string) => void;
  log: Logger;
};

/**
 * One parsed, permitted command: the connection-level ones (ping, ping.broadcast, history.sync,
 * server.shutdown, dashboard.ticket) are answered here; every other goes to the engine.
 */
export function dispatchCommand(session: ClientSession, command: ClientCommand, deps: CommandDeps): void {
  switch (command.type) {
    case 'ping':
      sendEvent(session, 'pong', { message: 'pong', timestamp: new Date().toISOString() });
      return;
    case 'ping.broadcast': {
      const frame = JSON.stringify(
        makeEvent('pong', { message: 'pong', timestamp: new Date().toISOString(), clientId: session.id }),
      );
      deps.sessions.broadcast(frame);
      return;
    }
    case 'history.sync':
      historySync(session, command.id, deps);
      return;
    case 'server.shutdown': {
      const reason = echo(command.data.reason, REASON_MAX_CHARS);
      deps.log.info({ clientId: session.id, reason }, 'shutdown requested');
      deps.onShutdownRequested(reason, session.id);
      return;
    }
    case 'dashboard.ticket':
      dashboardTicket(session, command.id, command.data, deps);
      return;
    default:
      deps.engine.handle(command, contextFor(session, command.id));
  }
}

function dashboardTicket(
  session: ClientSession,
  commandId: string,
  { origin, mode }: Extract<ClientCommand, { type: 'dashboard.ticket' }>['data'],
  deps: CommandDeps,
): void {
  // A readonly client may hand out readonly tickets only: no more than it has itself.
  if (mode === 'readandwrite' && session.mode !== 'readandwrite') {
    sendError(
      session,
      'INSUFFICIENT_PERMISSIONS',
      'a readandwrite dashboard.ticket needs a readandwrite client; this client is readonly',
      commandId,
    );
    return;
  }
  const minted = deps.mintTicket(origin, mode);
  if (!minted) {
    sendError(
      session,
      'INVALID_COMMAND',
      `dashboard.ticket: origin ${echo(origin)} is not http(s)://HOST:PORT`,
      commandId,
    );
    return;
  }
  deps.log.info({ clientId: session.id, origin: minted.origin, mode }, 'dashboard ticket issued');
  sendEvent(session, 'dashboard.ticket', {
    ticket: minted.ticket,
    origin: minted.origin,
    mode,
    expiresAt: new Date(minted.expiresAt).toISOString(),
  });
}

/** One history.sync per client at a time: each one holds a batch in memory while it streams. */
function historySync(session: ClientSession, commandId: string, deps: CommandDeps): void {
  if (session.historySyncing) {
    sendError(
      session,
      'HISTORY_SYNC_IN_PROGRESS',
      'this client already has a history.sync streaming; send another after its last history.batch (hasMore: false)',
      commandId,
    );
    return;
  }
  session.historySyncing = true;
  streamHistory(deps.journal, session, deps.historyBatch)
    .catch((error: unknown) =>
      deps.log.warn({ clientId: session.id, err: error }, 'history sync interrupted'),
    )
    .finally(() => {
      session.historySyncing = false;
    });
}

function contextFor(session: ClientSession, commandId: string): CommandContext {
  return {
    clientId: session.id,
    commandId,
    reply: (type, data) => sendEvent(session, type, data),
    fail: (code, message) => sendError(session, code, message, commandId),
  };
}
