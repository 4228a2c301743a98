import {
  type ErrorCode,
  type EventInput,
  type EventType,
  eventDataSchemas,
  makeEvent,
} from '../../core/protocol/index.ts';
import type { ClientSession } from './client-session.ts';

/** An event to one client only, checked against its schema; never journaled. */
export function sendEvent<T extends EventType>(session: ClientSession, type: T, data: EventInput<T>): void {
  const parsed = eventDataSchemas[type].parse(data);
  session.send(JSON.stringify(makeEvent(type, parsed as never)));
}

/** An `error` of severity operation to one client, for the command `commandId` when there is one. */
export function sendError(
  session: ClientSession,
  code: ErrorCode,
  message: string,
  commandId?: string,
): void {
  sendEvent(session, 'error', {
    message,
    fatal: false,
    severity: 'operation',
    code,
    ...(commandId === undefined ? {} : { commandId }),
  });
}
