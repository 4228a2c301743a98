import type { Logger } from 'pino';
import type { ClientMode, HandshakeRequest } from '../../core/protocol/index.ts';
import type { Engine } from '../../engine/engine.ts';
import type { EventBus } from '../../execution/journal/event-bus.ts';
import type { Journal } from '../../execution/journal/journal.ts';
import type { ClientSession } from './client-session.ts';
import { frameWithEvents, type HistoryLimits } from './history-stream.ts';
import { sendError, sendEvent } from './send.ts';
import type { ServerInfo } from './server-options.ts';

export type HandshakeDeps = {
  journal: Journal;
  bus: EventBus;
  engine: Engine;
  info: ServerInfo;
  handshakeHistory: HistoryLimits;
  /** The port the server listens on (server.ready's `port`). */
  port: number;
  log: Logger;
};

/**
 * A client's handshake (spec 2.2): the mode granted, the run's recent events when asked for, then
 * server.ready and whatever the engine tells new clients. Once per connection.
 */
export function answerHandshake(
  session: ClientSession,
  request: HandshakeRequest,
  deps: HandshakeDeps,
): void {
  if (session.handshaken) {
    sendError(
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
  const { journal, bus, info, engine } = deps;
  // Serialized by hand so stored events are sent exactly as journaled, never parsed again.
  const history = sendPreviousEvents ? journal.recentOfRun(bus.runId, deps.handshakeHistory) : [];
  session.send(
    frameWithEvents('handshake.response', 'eventHistory', history, {
      before: `"clientId":"${session.id}","mode":"${mode}",`,
      after: `,"totalEvents":${journal.count()}`,
    }),
  );
  const { extras, ...fixed } = info;
  sendEvent(session, 'server.ready', {
    ...fixed,
    ...extras?.(),
    ...engine.readyInfo?.(),
    port: deps.port,
  });
  engine.greet?.((type, data) => sendEvent(session, type, data));
  deps.log.info({ clientId: session.id, mode, asked: request.data.mode }, 'client handshaken');
}
