import { isUtf8 } from 'node:buffer';
import { z } from 'zod';
import {
  type ClientCommand,
  COMMAND_TYPES,
  commandSchemas,
  type ErrorCode,
  echo,
  HandshakeRequest,
  MAX_COMMAND_ID_LENGTH,
} from '../protocol/index.ts';

export type FrameProblem = { code: ErrorCode; message: string; commandId?: string };
export type ParsedFrame =
  | { ok: true; kind: 'handshake'; handshake: HandshakeRequest }
  | { ok: true; kind: 'command'; command: ClientCommand }
  | { ok: false; problem: FrameProblem };

const isCommandType = (type: string): type is keyof typeof commandSchemas =>
  Object.hasOwn(commandSchemas, type);

/**
 * Turns one inbound WebSocket frame into a validated handshake or command, or a problem to report
 * to the sender. Pure: nothing acts on a frame before this has accepted it.
 */
export function parseFrame(raw: Buffer | string, isBinary: boolean, maxBytes: number): ParsedFrame {
  if (isBinary) return problem('INVALID_MESSAGE', 'binary frames are not accepted; send JSON text frames');
  const size = typeof raw === 'string' ? Buffer.byteLength(raw) : raw.length;
  if (size > maxBytes) {
    return problem('MESSAGE_TOO_LARGE', `frame of ${size} bytes is over the limit of ${maxBytes} bytes`);
  }
  if (typeof raw !== 'string' && !isUtf8(raw)) {
    return problem('INVALID_MESSAGE', 'frame is not valid UTF-8 text');
  }
  let value: unknown;
  try {
    value = JSON.parse(typeof raw === 'string' ? raw : raw.toString('utf8'));
  } catch {
    return problem(
      'INVALID_MESSAGE',
      'frame is not valid JSON; send {"id": "...", "type": "...", "data": {...}}',
    );
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return problem('INVALID_MESSAGE', 'a command is a JSON object with "id", "type" and optional "data"');
  }
  // An id too long to be valid is not repeated in the answer either.
  const id =
    'id' in value &&
    typeof value.id === 'string' &&
    value.id !== '' &&
    value.id.length <= MAX_COMMAND_ID_LENGTH
      ? value.id
      : undefined;
  const type = 'type' in value ? value.type : undefined;
  if (typeof type !== 'string') {
    return problem('INVALID_MESSAGE', 'the command has no string "type"', id);
  }
  if (type === 'handshake') {
    const parsed = HandshakeRequest.safeParse(value);
    if (!parsed.success) return problem('INVALID_COMMAND', invalid(type, parsed.error), id);
    return { ok: true, kind: 'handshake', handshake: parsed.data };
  }
  if (!isCommandType(type)) {
    return problem(
      'UNKNOWN_COMMAND',
      `unknown command "${echo(type)}"; known: handshake, ${COMMAND_TYPES.join(', ')}`,
      id,
    );
  }
  const parsed = commandSchemas[type].safeParse(value);
  if (!parsed.success) return problem('INVALID_COMMAND', invalid(type, parsed.error), id);
  return { ok: true, kind: 'command', command: parsed.data };
}

function invalid(type: string, error: z.ZodError): string {
  return `invalid ${type}: ${z.prettifyError(error).replaceAll('\n', '; ')}`;
}

function problem(code: ErrorCode, message: string, commandId?: string): ParsedFrame {
  return { ok: false, problem: commandId === undefined ? { code, message } : { code, message, commandId } };
}
