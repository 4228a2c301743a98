import { z } from 'zod';
import {
  COMMAND_TYPES,
  commandSchemas,
  ErrorCode,
  EVENT_TYPES,
  EXTENSION_MARK,
  errorCodeDescriptions,
  eventSchemas,
  HandshakeRequest,
  SPEC_ERROR_CODES,
} from '../../core/protocol/index.ts';

/**
 * JSON Schemas of every command (the handshake included) and every event of Interface A, generated
 * from the zod schemas in src/core/protocol/. Each describes what the server's own parser accepts (`io:
 * input`: fields with defaults may be left out; objects that are not strict allow other keys, so a
 * newer server's optional fields do not make an older schema reject its events).
 */

export type JsonSchema = Record<string, unknown>;

const OPTIONS = {
  io: 'input',
  target: 'draft-7',
  override: (ctx) => {
    // Each code with its meaning and, for ours, the extension mark (a plain enum cannot carry either).
    if (ctx.zodSchema === ErrorCode) {
      delete ctx.jsonSchema.enum;
      ctx.jsonSchema.oneOf = ErrorCode.options.map((code) => ({
        const: code,
        description: errorCodeDescriptions[code],
        ...(SPEC_ERROR_CODES.has(code) ? {} : { [EXTENSION_MARK]: true }),
      }));
    }
  },
} satisfies Parameters<typeof z.toJSONSchema>[1];

export type MessageSchema = { kind: 'command' | 'event'; type: string; schema: JsonSchema };

/** The handshake first, then the commands and the events in the order src/core/protocol/ lists them. */
export function protocolSchemas(): MessageSchema[] {
  const render = (kind: MessageSchema['kind'], type: string, schema: z.ZodType): MessageSchema => ({
    kind,
    type,
    // `$schema` stays first, as in every JSON Schema file.
    schema: { $schema: undefined, title: `${type} ${kind}`, ...z.toJSONSchema(schema, OPTIONS) },
  });
  return [
    render('command', 'handshake', HandshakeRequest),
    ...COMMAND_TYPES.map((type) => render('command', type, commandSchemas[type])),
    ...EVENT_TYPES.map((type) => render('event', type, eventSchemas[type])),
  ];
}

/** `commands/<type>.schema.json` and `events/<type>.schema.json`, relative to schema/. */
export function schemaPath(message: Pick<MessageSchema, 'kind' | 'type'>): string {
  return `${message.kind}s/${message.type}.schema.json`;
}

export function protocolSchemaFiles(): Record<string, string> {
  return Object.fromEntries(
    protocolSchemas().map((m) => [schemaPath(m), `${JSON.stringify(m.schema, null, 2)}\n`]),
  );
}
