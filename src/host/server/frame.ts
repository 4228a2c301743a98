import { isUtf8 } from 'node:buffer';
import type { z } from 'zod';
import {
  type ClientCommand,
  COMMAND_TYPES,
  type CommandType,
  commandSchemas,
  type ErrorCode,
  echo,
  HandshakeRequest,
  MAX_COMMAND_ID_LENGTH,
} from '../../core/protocol/index.ts';
import { commandProblems, invalidCommandMessage } from './command-problems.ts';

export type FrameProblem = { code: ErrorCode; message: string; commandId?: string };
/** A command whose type is known, its payload not yet checked (the gate comes first, spec 3.1). */
export type CommandFrame = { type: CommandType; commandId: string | undefined; value: object };
export type ParsedFrame =
  | { ok: true; kind: 'handshake'; handshake: HandshakeRequest }
  | ({ ok: true; kind: 'command' } & CommandFrame)
  | { ok: false; problem: FrameProblem };
export type ParsedCommand = { ok: true; command: ClientCommand } | { ok: false; problem: FrameProblem };

const isCommandType = (type: string): type is keyof typeof commandSchemas =>
  Object.hasOwn(commandSchemas, type);

/**
 * Turns one inbound WebSocket frame into a validated handshake, a command of a known type (its
 * payload checked by `parseCommand` once the gate let it through), or a problem to report to the
 * sender. Pure: nothing acts on a frame before this and `parseCommand` have accepted it.
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
    if (!parsed.success)
      return problem('INVALID_COMMAND', invalid(type, HandshakeRequest, parsed.error, value), id);
    return { ok: true, kind: 'handshake', handshake: parsed.data };
  }
  if (!isCommandType(type)) {
    return problem(
      'UNKNOWN_COMMAND',
      `unknown command "${echo(type)}"; known: handshake, ${COMMAND_TYPES.join(', ')}`,
      id,
    );
  }
  return { ok: true, kind: 'command', type, commandId: id, value };
}

/** Checks a command's id and payload against its schema (defaults applied). */
export function parseCommand(frame: CommandFrame): ParsedCommand {
  const parsed = commandSchemas[frame.type].safeParse(frame.value);
  if (parsed.success) return { ok: true, command: parsed.data };
  return problem(
    'INVALID_COMMAND',
    invalid(frame.type, commandSchemas[frame.type], parsed.error, frame.value),
    frame.commandId,
  );
}

function invalid(type: string, schema: z.ZodType, error: z.ZodError, value: unknown): string {
  return invalidCommandMessage(type, commandProblems(error.issues, schema, value));
}

function problem(code: ErrorCode, message: string, commandId?: string): { ok: false; problem: FrameProblem } {
  return { ok: false, problem: commandId === undefined ? { code, message } : { code, message, commandId } };
}

export type AcceptedFrame =
  | { ok: true; kind: 'handshake'; handshake: HandshakeRequest }
  | { ok: true; kind: 'command'; command: ClientCommand }
  | { ok: false; problem: FrameProblem };

/**
 * `parseFrame` then `parseCommand`, the gate aside: what the server takes from a handshaken
 * readandwrite client outside a rollback (for fuzzers and tests that judge frames by themselves).
 */
export function acceptFrame(raw: Buffer | string, isBinary: boolean, maxBytes: number): AcceptedFrame {
  const parsed = parseFrame(raw, isBinary, maxBytes);
  if (!parsed.ok || parsed.kind === 'handshake') return parsed;
  const checked = parseCommand(parsed);
  return checked.ok ? { ok: true, kind: 'command', command: checked.command } : checked;
}
