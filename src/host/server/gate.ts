import {
  type ClientMode,
  type CommandType,
  type ErrorCode,
  isStateModifying,
} from '../../core/protocol/index.ts';

export type GateInput = {
  /** The mode granted at handshake, or undefined before it. */
  mode: ClientMode | undefined;
  rollingBack: boolean;
  /** The client is a page (its upgrade had an Origin): it may not ask for dashboard tickets. */
  fromPage?: boolean;
  /** The client came in with a readonly dashboard ticket: it may not stop the server either. */
  readonlyDashboard?: boolean;
};

/**
 * The connection-state table of spec 3.1 as a pure function: null lets the command through,
 * anything else is the error to send back; a refused command changes nothing.
 */
export function gateCommand(
  type: CommandType,
  input: GateInput,
): { code: ErrorCode; message: string } | null {
  if (input.mode === undefined) {
    return {
      code: 'HANDSHAKE_REQUIRED',
      message: `send {"type":"handshake","data":{"mode":"readonly"|"readandwrite"}} before ${type}`,
    };
  }
  if (type === 'dashboard.ticket' && input.fromPage) {
    return {
      code: 'INSUFFICIENT_PERMISSIONS',
      message:
        'dashboard.ticket is for the process that serves a dashboard (a client without Origin), not a page',
    };
  }
  if (type === 'server.shutdown' && input.readonlyDashboard) {
    return {
      code: 'INSUFFICIENT_PERMISSIONS',
      message: 'server.shutdown: this client is a readonly dashboard, which may watch the run only',
    };
  }
  if (!isStateModifying(type)) return null;
  if (input.mode === 'readonly') {
    return {
      code: 'INSUFFICIENT_PERMISSIONS',
      message: `${type} changes state and needs a readandwrite client; this client is readonly`,
    };
  }
  if (input.rollingBack) {
    return {
      code: 'ROLLBACK_IN_PROGRESS',
      message: `a rollback is in progress; send ${type} again after rollback.completed`,
    };
  }
  return null;
}
